#ifndef SCAND_CODECS_H
#define SCAND_CODECS_H
#include <stddef.h>
#include <stdint.h>

/*
 * Decoders from compressed images to 8-bit grayscale, on top of libpng and libjpeg-turbo.
 * Both libraries report errors with longjmp, which Swift cannot catch; these wrappers do, and
 * return 0 on success or -1 with a message in `err`.
 *
 * On success `*out` is a malloc'd buffer of width*height bytes (stride == width) that the caller
 * frees with free(3).
 */

/// Decodes a JPEG (baseline or progressive, any colour space) to gray. An image of more than
/// `max_pixels` is refused after its header is read, before anything is allocated for it.
int scand_jpeg_to_gray(const uint8_t *data, size_t length, size_t max_pixels, uint8_t **out,
                       int *width, int *height, char *err, size_t errlen);

/// Decodes a JPEG into a caller-supplied buffer of `capacity` bytes laid out with `stride`;
/// for per-frame MJPEG decoding without allocation. Fails when the image does not fit.
int scand_jpeg_to_gray_into(const uint8_t *data, size_t length, uint8_t *out, size_t capacity,
                            int stride, int *width, int *height, char *err, size_t errlen);

/// Decodes a PNG (any bit depth, palette, alpha) to gray; more than `max_pixels` is refused
/// after the header, before allocation.
int scand_png_to_gray(const uint8_t *data, size_t length, size_t max_pixels, uint8_t **out,
                      int *width, int *height, char *err, size_t errlen);

/// Decodes a PNG to 8-bit RGB (3 bytes a pixel), as `scand_png_to_gray` does to gray.
int scand_png_to_rgb(const uint8_t *data, size_t length, size_t max_pixels, uint8_t **out,
                     int *width, int *height, char *err, size_t errlen);

/*
 * Encoders, for snapshots and the setup page's preview. On success `*out` is a malloc'd buffer
 * of `*out_length` bytes that the caller frees with free(3).
 */

/// Encodes `channels` (1: gray, 3: RGB) bytes a pixel, rows `stride` bytes apart, as a PNG.
int scand_png_encode(const uint8_t *pixels, int width, int height, int stride, int channels,
                     uint8_t **out, size_t *out_length, char *err, size_t errlen);

/// Encodes a gray image, rows `stride` bytes apart, as a baseline JPEG of `quality` (1-100).
int scand_jpeg_from_gray(const uint8_t *pixels, int width, int height, int stride, int quality,
                         uint8_t **out, size_t *out_length, char *err, size_t errlen);
#endif
