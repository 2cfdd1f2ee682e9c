package fiji.cuda.image;

/**
 * The pixel types an operation accepts, matching ImageJ 1's four processor types.
 * <p>
 * Each type fixes the Java array that holds one plane and the number of bytes a
 * pixel occupies on the device; RGB is packed 0xAARRGGBB in an {@code int[]} and is
 * processed per channel.
 */
public enum PixelType {
	/** Unsigned 8-bit, one {@code byte[]} per plane. */
	UINT8(1, 255),
	/** Unsigned 16-bit, one {@code short[]} per plane. */
	UINT16(2, 65535),
	/** 32-bit float, one {@code float[]} per plane. */
	FLOAT32(4, Float.MAX_VALUE),
	/** Packed RGB, one {@code int[]} per plane, three 8-bit channels. */
	RGB(4, 255);

	private final int bytesPerPixel;
	private final double maxValue;

	PixelType(int bytesPerPixel, double maxValue) {
		this.bytesPerPixel = bytesPerPixel;
		this.maxValue = maxValue;
	}

	/** @return bytes one pixel occupies in a plane array */
	public int bytesPerPixel() {
		return bytesPerPixel;
	}

	/** @return the largest value an integer channel can hold (results are clamped to it) */
	public double maxValue() {
		return maxValue;
	}

	/** @return true for the types whose results are rounded and clamped */
	public boolean isInteger() {
		return this != FLOAT32;
	}

	/**
	 * @return the suffix of the gray kernels for this type in {@code kernels/} ("u8", "u16",
	 *         "f32"), or null for RGB, whose channels run as 8-bit planes
	 */
	public String kernelSuffix() {
		switch (this) {
			case UINT8: return "u8";
			case UINT16: return "u16";
			case FLOAT32: return "f32";
			default: return null;
		}
	}

	/** @return the number of channels processed separately (3 for RGB, else 1) */
	public int channels() {
		return this == RGB ? 3 : 1;
	}

	/**
	 * @param plane a plane array
	 * @return the type whose planes are arrays of that class
	 * @throws IllegalArgumentException for any other object
	 */
	public static PixelType of(Object plane) {
		if (plane instanceof byte[]) return UINT8;
		if (plane instanceof short[]) return UINT16;
		if (plane instanceof float[]) return FLOAT32;
		if (plane instanceof int[]) return RGB;
		if (plane == null) throw new IllegalArgumentException("A slice of the image has no pixels (it could not be read).");
		throw new IllegalArgumentException("Only 8-bit, 16-bit, 32-bit and RGB images are supported, not pixels of "
			+ plane.getClass().getSimpleName() + ".");
	}

	/** @return the type as ImageJ's Image>Type menu names it: "8-bit", "16-bit", "32-bit" or "RGB" */
	public String label() {
		switch (this) {
			case UINT8: return "8-bit";
			case UINT16: return "16-bit";
			case FLOAT32: return "32-bit";
			default: return "RGB";
		}
	}

	/**
	 * @param pixels the plane's length in pixels (width × height), at least 0
	 * @return a new zero-filled plane array of this type: byte[], short[], float[] or int[]
	 * @throws NegativeArraySizeException when {@code pixels} is negative
	 */
	public Object newPlane(int pixels) {
		switch (this) {
			case UINT8: return new byte[pixels];
			case UINT16: return new short[pixels];
			case FLOAT32: return new float[pixels];
			default: return new int[pixels];
		}
	}
}
