package fiji.cuda.integral;

import fiji.cuda.image.Planes;
import fiji.cuda.ops.ExecutionOptions;

import net.imglib2.Cursor;
import net.imglib2.RandomAccessibleInterval;
import net.imglib2.type.numeric.RealType;
import net.imglib2.type.numeric.integer.UnsignedByteType;
import net.imglib2.type.numeric.integer.UnsignedShortType;
import net.imglib2.type.numeric.real.FloatType;
import net.imglib2.view.Views;

/**
 * The integral-image build from ImgLib2 images: a 2D {@code RandomAccessibleInterval} of
 * {@code UnsignedByteType}, {@code UnsignedShortType} or {@code FloatType} (any interval, a view
 * included; its minimum is the tables' origin) gives the same {@link SummedAreaTable} as
 * {@link IntegralImage#build}, whose {@code LongType} / {@code DoubleType} images and box
 * queries serve the result. Kept apart from {@link IntegralImage} so that the ImageJ 1 menu
 * commands, which use that class, load without ImgLib2 on the class path.
 */
public final class IntegralImageImgLib2 {

	private IntegralImageImgLib2() {}

	/**
	 * Builds both tables of a 2D image.
	 *
	 * @param <T>   the pixel type, one of the three below
	 * @param image 8-bit ({@code UnsignedByteType}), 16-bit ({@code UnsignedShortType}) or 32-bit
	 *              ({@code FloatType}) pixels, in two dimensions (for one plane of a stack, pass
	 *              {@code Views.hyperSlice(img, 2, z)}); not modified
	 * @param build the GPU build, or null / AUTO for the fastest
	 * @param opts  backend and CPU threads; null for the defaults
	 * @return the tables: exact {@code LongType} for 8 and 16-bit pixels, {@code DoubleType} for 32-bit
	 * @throws IllegalArgumentException for no image, an empty one, another pixel type, another
	 *         number of dimensions, or a plane of more than 2^31 - 9 pixels (Java's largest array)
	 * @throws fiji.cuda.runtime.GpuException only when the GPU was forced and failed
	 */
	public static <T extends RealType<T>> SummedAreaTable build(RandomAccessibleInterval<T> image, SatBuild build,
		ExecutionOptions opts)
	{
		String name = IntegralImage.NAME;
		if (image == null) throw new IllegalArgumentException(name + ": there is no image.");
		if (image.numDimensions() != 2)
			throw new IllegalArgumentException(name + ": the image has " + image.numDimensions() + " dimensions; give one "
				+ "2D plane (Views.hyperSlice for a plane of a stack).");
		long w = image.dimension(0), h = image.dimension(1);
		if (w < 1 || h < 1)
			throw new IllegalArgumentException(name + ": the image is empty (" + w + "x" + h + " pixels).");
		// divided, not multiplied: the product of two long sides of a view wrapped around
		if (w > (Integer.MAX_VALUE - 8) / h)
			throw new IllegalArgumentException(name + ": a plane of " + w + "x" + h + " pixels is too large (at most "
				+ (Integer.MAX_VALUE - 8) + " pixels).");
		// read without the cast to T: a script's untyped interval of ARGB or complex pixels reaches
		// here too, and the cast threw a ClassCastException instead of the message below
		Object type = ((RandomAccessibleInterval<?>) image).getType();
		int n = (int) (w * h), i = 0;
		Object plane;
		Cursor<T> c = Views.flatIterable(image).cursor();
		if (type instanceof UnsignedByteType) {
			byte[] p = new byte[n];
			while (c.hasNext())
				p[i++] = (byte) ((UnsignedByteType) c.next()).get();
			plane = p;
		} else if (type instanceof UnsignedShortType) {
			short[] p = new short[n];
			while (c.hasNext())
				p[i++] = (short) ((UnsignedShortType) c.next()).get();
			plane = p;
		} else if (type instanceof FloatType) {
			float[] p = new float[n];
			while (c.hasNext())
				p[i++] = ((FloatType) c.next()).get();
			plane = p;
		} else {
			throw new IllegalArgumentException(name + ": " + type.getClass().getSimpleName() + " pixels are not supported; "
				+ "use UnsignedByteType, UnsignedShortType or FloatType.");
		}
		return IntegralImage.build(Planes.wrap((int) w, (int) h, plane), 0, build, opts);
	}
}
