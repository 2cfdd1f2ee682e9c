package fiji.cuda.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's first Quick start command writes every output it announces. */
class QuickStartTest {

	@Test
	void writesTheSampleAndEveryResult(@TempDir Path dir) throws Exception {
		QuickStart.main(new String[] { dir.toString() });
		for (String f : new String[] { "sample.tif", "gaussian_blur.tif", "gaussian_blur_3d.tif", "local_threshold.tif",
			"detections.csv", "box_statistics.tif", "aligned.tif", "align_shifts.csv" })
			assertTrue(new File(dir.toFile(), f).length() > 0, f + " missing or empty");
		List<String> csv = Files.readAllLines(dir.resolve("detections.csv"));
		// the synthetic slice holds dozens of cells; the disk template must find many of them
		assertTrue(csv.size() > 20, "only " + (csv.size() - 1) + " detections");
		// every operation of the project runs: the known drift of noisy slices comes back within a quarter of a pixel
		List<String> shifts = Files.readAllLines(dir.resolve("align_shifts.csv"));
		assertEquals(17, shifts.size(), "header and one row per slice");
		for (String row : shifts.subList(1, shifts.size())) {
			String[] v = row.split(",");
			assertEquals(Double.parseDouble(v[1]), Double.parseDouble(v[3]), 0.25, row);
			assertEquals(Double.parseDouble(v[2]), Double.parseDouble(v[4]), 0.25, row);
		}
	}
}
