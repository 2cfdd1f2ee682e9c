package fiji.cuda.ij;

import fiji.cuda.ij.TemplateMatchingPlugin.NamedTemplates;
import fiji.cuda.image.Planes;
import fiji.cuda.image.Region;
import fiji.cuda.ncc.Template;
import fiji.cuda.ncc.TemplateMatching;
import fiji.cuda.ops.Texts;
import ij.ImagePlus;
import ij.ImageStack;
import ij.gui.Roi;
import ij.process.ImageProcessor;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Where the templates of "GPU Template Matching" come from: every slice of an open image (cut
 * and masked by its area selection), or every slice of the .tif/.tiff files of a folder (cut
 * and masked by the selection saved with each), so that both kinds reach the matching alike.
 */
final class TemplateMatchingTemplates {

	private TemplateMatchingTemplates() {}

	/** Every slice of the template image, cut to its area selection with the selection's mask. */
	static List<Template> fromImage(ImagePlus template) {
		return fromImage(template, 0, 0);
	}

	/**
	 * The template an image is of itself: its selection cut from the slice shown only. Cut from
	 * every slice, each slice's own cut matched itself at the selection, score 1, where the
	 * selected object was not. It is numbered as that slice, so that the Template column says
	 * where it was cut from.
	 */
	static List<Template> ofItself(ImagePlus image) {
		return fromImage(image, 0, image.getCurrentSlice());
	}

	/**
	 * {@link #fromImage(ImagePlus)}, of slice {@code only} alone when it is above 0; slice z is
	 * numbered {@code first + z - 1}.
	 */
	private static List<Template> fromImage(ImagePlus template, int first, int only) {
		Roi roi = template.getRoi();
		Region r;
		try {
			r = roi != null && roi.isArea() ? ImagePlusPlanes.region(roi) : null;
		} catch (IllegalArgumentException e) {
			// "The selection has zero area (10x0)." did not say whose selection it was
			throw new IllegalArgumentException("The selection of the template \"" + template.getTitle() + "\" has no area ("
				+ roi.getBounds().width + "x" + roi.getBounds().height
				+ "); select a part of the template, or none for all of it.");
		}
		ImageStack stack = template.getStack();
		List<Template> out = new ArrayList<>();
		for (int z = only > 0 ? only : 1; z <= (only > 0 ? only : stack.getSize()); z++) {
			ImageProcessor ip = ImagePlusPlanes.slice(template, z);
			Planes p = Planes.wrap(ip.getWidth(), ip.getHeight(), ip.getPixels());
			int index = first + z - 1;
			if (r == null) {
				out.add(new Template(p, null, index, 0, false));
				continue;
			}
			Region c;
			try {
				c = r.clipTo(p.width(), p.height()); // clips the mask too
			} catch (IllegalArgumentException e) {
				// "the selection lies outside the image" read as the image searched, not the template
				throw new IllegalArgumentException("The selection of the template \"" + template.getTitle()
					+ "\" lies outside it; select a part of the template, or none for all of it.");
			}
			// points on one slanted line have bounds but no pixel inside: the matching's "the
			// template mask is empty" named a mask the user never made
			if (c.mask != null && enclosesNone(c.mask))
				throw new IllegalArgumentException("The selection of the template \"" + template.getTitle()
					+ "\" encloses no pixel (points on one line); select a part of the template, or none for all of it.");
			out.add(new Template(TemplateMatching.crop(p, 0, c), c.mask, index, 0, false));
		}
		return out;
	}

	/**
	 * {@link TemplateMatchingPlugin#folderTemplates(Path)}, its messages naming the macro key
	 * that gave the folder.
	 */
	static NamedTemplates fromFolder(Path folder, String key) {
		if (folder != null && Files.isRegularFile(folder))
			throw new IllegalArgumentException("'" + folder + "' is a file, not a folder: open it and give its title, "
				+ "or give a folder of templates (" + key + ").");
		if (folder == null || !Files.isDirectory(folder))
			throw new IllegalArgumentException("The template folder '" + folder + "' does not exist (" + key + ").");
		List<Path> files;
		try (Stream<Path> list = Files.list(folder)) {
			files = list.filter(f -> isTiff(f.getFileName().toString()) && Files.isRegularFile(f)).sorted()
				.collect(Collectors.toList());
		} catch (IOException e) {
			throw new IllegalArgumentException("The folder '" + folder + "' cannot be read (" + key + "): " + e.getMessage());
		}
		if (files.isEmpty())
			throw new IllegalArgumentException("The folder '" + folder + "' holds no .tif or .tiff image (" + key + ").");
		NamedTemplates out = new NamedTemplates();
		for (Path f : files) {
			String name = f.getFileName().toString();
			// ImageJ's Opener answers a file that is no TIFF with an error dialog, which in a
			// batch macro nobody can close, and throws on one cut short in its header: such files
			// are refused here before they are opened
			ImagePlus imp = TiffFiles.open(f.toString());
			if (imp == null)
				throw new IllegalArgumentException("The template '" + name + "' in '" + folder + "' cannot be opened (" + key
					+ ").");
			if (imp.getBitDepth() == 24)
				throw new IllegalArgumentException("The template '" + name + "' in '" + folder
					+ "' is RGB, which is not supported. " + Texts.CONVERT_RGB);
			// the area selection saved with a file (which the Opener restores) cuts and masks its
			// templates, as it does a single template file opened and given as template=: the same
			// files moved into a folder gave other scores, their masked-out corners counted
			List<Template> cut;
			try {
				cut = fromImage(imp, out.templates.size(), 0);
			} catch (IllegalArgumentException e) {
				String why = e.getMessage().replaceFirst("^" + Pattern.quote(TemplateMatching.NAME) + ": ", "");
				throw new IllegalArgumentException("The template '" + name + "' in '" + folder + "' (" + key + "): " + why);
			}
			int slices = imp.getStackSize();
			for (int z = 1; z <= slices; z++) {
				out.templates.add(cut.get(z - 1));
				out.names.add(slices > 1 ? name + ":" + z : name);
			}
		}
		return out;
	}

	private static boolean enclosesNone(byte[] mask) {
		for (byte b : mask)
			if (b != 0) return false;
		return true;
	}

	private static boolean isTiff(String name) {
		String n = name.toLowerCase(Locale.ROOT);
		return !n.startsWith(".") && (n.endsWith(".tif") || n.endsWith(".tiff"));
	}

	/**
	 * A {@code template} value that is no open image's title is taken as a folder when it is
	 * one, or when it looks like a path (so that a missing folder gets its own message).
	 */
	static boolean isFolderPath(String value) {
		if (value == null || value.isEmpty()) return false;
		File f = new File(value);
		return f.isDirectory() || f.isAbsolute() || value.indexOf('/') >= 0 || value.indexOf(File.separatorChar) >= 0;
	}

}
