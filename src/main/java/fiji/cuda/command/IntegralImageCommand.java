package fiji.cuda.command;

import fiji.cuda.ij.IjBridge;
import fiji.cuda.ij.IjErrors;
import fiji.cuda.ij.ImagePlusPlanes;
import fiji.cuda.ij.IntegralImagePlugin;
import fiji.cuda.integral.IntegralImage;
import fiji.cuda.integral.SatBuild;
import fiji.cuda.integral.SummedAreaTable;
import ij.ImagePlus;
import net.imglib2.img.array.ArrayImg;
import org.scijava.ItemIO;
import org.scijava.command.Command;
import org.scijava.command.ContextCommand;
import org.scijava.plugin.Parameter;
import org.scijava.plugin.Plugin;

import java.util.Locale;

/**
 * The summed-area tables of one slice as exact ImgLib2 images: {@code LongType} for 8 and
 * 16-bit images, {@code DoubleType} for 32-bit. No menu path: the menu entry is ImageJ 1's
 * "GPU Integral Image...", which gives 32-bit images. Bad input cancels with the reason.
 */
@Plugin(type = Command.class, headless = true, visible = false, label = "GPU Integral Image")
public class IntegralImageCommand extends ContextCommand {

	@Parameter
	private ImagePlus image;

	@Parameter(label = "Slice", persist = false, description = "1-based stack index; 0 for the current slice", min = "0", required = false)
	private int slice;

	@Parameter(label = "Build", persist = false, description = "GPU build (AUTO = fastest); the CPU ignores it", required = false)
	private String build = "AUTO";

	@Parameter(type = ItemIO.OUTPUT, label = "Sum table")
	private ArrayImg<?, ?> sum;

	@Parameter(type = ItemIO.OUTPUT, label = "Sum-of-squares table")
	private ArrayImg<?, ?> sumOfSquares;

	@Override
	public void run() {
		try {
			Inputs.requireImage(image, "image");
			int index = sliceIndex();
			// a script may pass None or null for the optional build: the fastest, as for AUTO
			SatBuild b = build == null ? SatBuild.AUTO : named(build);
			SummedAreaTable t = ImagePlusPlanes.whileReading(image, null, () -> IntegralImage.build(
				ImagePlusPlanes.wrap(ImagePlusPlanes.slice(image, index)), 0, b, IjBridge.options()));
			sum = t.sumImg();
			sumOfSquares = t.sumSqImg();
		} catch (RuntimeException | OutOfMemoryError e) {
			// any failure, out of memory and the unexpected too, as the menu commands take it: a
			// stack trace in the console was all a script's user got
			cancel(IjErrors.line(IntegralImagePlugin.COMMAND, e));
		}
	}

	/** @return the 1-based slice asked for; a negative one is refused, not taken for the current one as 0 is */
	private int sliceIndex() {
		int index = slice > 0 ? slice : image.getCurrentSlice();
		if (slice < 0 || index > image.getStackSize())
			throw new IllegalArgumentException("Slice must be 0 (the current slice) or a slice of the image, 1 to "
				+ image.getStackSize() + ", not slice=" + slice + ".");
		return index;
	}

	private static SatBuild named(String name) {
		try {
			// Locale.ROOT: in a Turkish locale "naive" would become "NAİVE", which is no build
			return SatBuild.valueOf(name.trim().toUpperCase(Locale.ROOT));
		} catch (IllegalArgumentException e) {
			throw new IllegalArgumentException("Build must be AUTO, NAIVE, CUB, DLB, FUSED or RTS, not build=" + name + ".");
		}
	}
}
