#include "scand_codecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

struct jpeg_fail {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    int truncated;
    char message[JMSG_LENGTH_MAX];
};

static void jpeg_fail_exit(j_common_ptr cinfo) {
    struct jpeg_fail *fail = (struct jpeg_fail *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, fail->message);
    longjmp(fail->jump, 1);
}

/* Warnings are silent, but a premature end of data is remembered: libjpeg pads such a file with
 * gray and carries on, which would hand a half image to the decoder. */
static void jpeg_note(j_common_ptr cinfo, int level) {
    struct jpeg_fail *fail = (struct jpeg_fail *)cinfo->err;
    if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) fail->truncated = 1;
}

/* Shared body: when `into` is NULL the pixels go to a malloc'd buffer returned in *out. */
static int jpeg_decode(const uint8_t *data, size_t length, size_t max_pixels, uint8_t **out,
                       uint8_t *into, size_t capacity, int stride, int *width, int *height,
                       char *err, size_t errlen) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_fail fail;
    uint8_t *volatile pixels = NULL;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&fail.mgr);
    fail.mgr.error_exit = jpeg_fail_exit;
    fail.mgr.emit_message = jpeg_note;
    fail.truncated = 0;
    fail.message[0] = 0;
    if (setjmp(fail.jump)) {
        snprintf(err, errlen, "JPEG: %s", fail.message);
        jpeg_destroy_decompress(&cinfo);
        if (into == NULL) free(pixels);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    if ((size_t)cinfo.image_width * (size_t)cinfo.image_height > max_pixels) {
        snprintf(err, errlen, "JPEG: %ux%u is more than %zu pixels; not decoded", cinfo.image_width,
                 cinfo.image_height, max_pixels);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    cinfo.out_color_space = JCS_GRAYSCALE;
    jpeg_start_decompress(&cinfo);
    int w = (int)cinfo.output_width, h = (int)cinfo.output_height;
    int row = w;
    if (into != NULL) {
        row = stride;
        if (stride < w || (size_t)stride * (size_t)h > capacity) {
            snprintf(err, errlen, "JPEG: %dx%d image does not fit the %zu-byte buffer", w, h,
                     capacity);
            jpeg_destroy_decompress(&cinfo);
            return -1;
        }
        pixels = into;
    } else {
        pixels = malloc((size_t)w * (size_t)h);
        if (pixels == NULL) {
            snprintf(err, errlen, "JPEG: out of memory for %dx%d", w, h);
            jpeg_destroy_decompress(&cinfo);
            return -1;
        }
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW line = pixels + (size_t)cinfo.output_scanline * (size_t)row;
        jpeg_read_scanlines(&cinfo, &line, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    if (fail.truncated) {
        snprintf(err, errlen, "JPEG: data is truncated or corrupt");
        if (into == NULL) free(pixels);
        return -1;
    }
    *width = w;
    *height = h;
    if (out != NULL) *out = pixels;
    return 0;
}

int scand_jpeg_to_gray(const uint8_t *data, size_t length, size_t max_pixels, uint8_t **out,
                       int *width, int *height, char *err, size_t errlen) {
    return jpeg_decode(data, length, max_pixels, out, NULL, 0, 0, width, height, err, errlen);
}

int scand_jpeg_to_gray_into(const uint8_t *data, size_t length, uint8_t *out, size_t capacity,
                            int stride, int *width, int *height, char *err, size_t errlen) {
    return jpeg_decode(data, length, capacity, NULL, out, capacity, stride, width, height, err,
                       errlen);
}

/* Shared body of the PNG decoders: `format` is PNG_FORMAT_GRAY or PNG_FORMAT_RGB. */
static int png_decode(const uint8_t *data, size_t length, size_t max_pixels, png_uint_32 format,
                      uint8_t **out, int *width, int *height, char *err, size_t errlen) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, length)) {
        snprintf(err, errlen, "PNG: %s", image.message);
        png_image_free(&image);
        return -1;
    }
    if ((size_t)image.width * (size_t)image.height > max_pixels) {
        snprintf(err, errlen, "PNG: %ux%u is more than %zu pixels; not decoded", image.width,
                 image.height, max_pixels);
        png_image_free(&image);
        return -1;
    }
    image.format = format;
    size_t size = PNG_IMAGE_SIZE(image);
    uint8_t *pixels = malloc(size ? size : 1);
    if (pixels == NULL) {
        snprintf(err, errlen, "PNG: out of memory for %ux%u", image.width, image.height);
        png_image_free(&image);
        return -1;
    }
    /* A white background for transparent pixels: codes on transparent stickers stay readable. */
    png_color background = {255, 255, 255};
    if (!png_image_finish_read(&image, &background, pixels, 0, NULL)) {
        snprintf(err, errlen, "PNG: %s", image.message);
        free(pixels);
        png_image_free(&image);
        return -1;
    }
    *width = (int)image.width;
    *height = (int)image.height;
    *out = pixels;
    return 0;
}

int scand_png_to_gray(const uint8_t *data, size_t length, size_t max_pixels, uint8_t **out,
                      int *width, int *height, char *err, size_t errlen) {
    return png_decode(data, length, max_pixels, PNG_FORMAT_GRAY, out, width, height, err, errlen);
}

int scand_png_to_rgb(const uint8_t *data, size_t length, size_t max_pixels, uint8_t **out,
                     int *width, int *height, char *err, size_t errlen) {
    return png_decode(data, length, max_pixels, PNG_FORMAT_RGB, out, width, height, err, errlen);
}

int scand_png_encode(const uint8_t *pixels, int width, int height, int stride, int channels,
                     uint8_t **out, size_t *out_length, char *err, size_t errlen) {
    if (width <= 0 || height <= 0 || (channels != 1 && channels != 3) || stride < width * channels) {
        snprintf(err, errlen, "PNG: cannot encode a %dx%d image of %d channels, stride %d", width,
                 height, channels, stride);
        return -1;
    }
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)width;
    image.height = (png_uint_32)height;
    image.format = channels == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
    /* Snapshots and previews are looked at once: speed over size (no filter search, a fast
       zlib level: about 25% larger for a camera frame). */
    image.flags = PNG_IMAGE_FLAG_FAST;
    /* One pass into a buffer of the largest size the image can take (libpng's bound: a little
       over the raw size), then shrunk: compressing twice, once for the size, cost double. */
    png_alloc_size_t size = PNG_IMAGE_PNG_SIZE_MAX(image);
    uint8_t *buffer = malloc(size);
    if (buffer == NULL) {
        snprintf(err, errlen, "PNG: out of memory for %zu bytes", (size_t)size);
        return -1;
    }
    if (!png_image_write_to_memory(&image, buffer, &size, 0, pixels, stride, NULL)) {
        snprintf(err, errlen, "PNG: %s", image.message);
        free(buffer);
        png_image_free(&image);
        return -1;
    }
    uint8_t *shrunk = realloc(buffer, size ? size : 1);
    *out = shrunk ? shrunk : buffer;
    *out_length = (size_t)size;
    return 0;
}

int scand_jpeg_from_gray(const uint8_t *pixels, int width, int height, int stride, int quality,
                         uint8_t **out, size_t *out_length, char *err, size_t errlen) {
    if (width <= 0 || height <= 0 || stride < width || quality < 1 || quality > 100) {
        snprintf(err, errlen, "JPEG: cannot encode a %dx%d image, stride %d, quality %d", width,
                 height, stride, quality);
        return -1;
    }
    struct jpeg_compress_struct cinfo;
    struct jpeg_fail fail;
    unsigned char *volatile buffer = NULL;
    unsigned long length = 0;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&fail.mgr);
    fail.mgr.error_exit = jpeg_fail_exit;
    fail.truncated = 0;
    if (setjmp(fail.jump)) {
        snprintf(err, errlen, "JPEG: %s", fail.message);
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, (unsigned char **)&buffer, &length);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 1;
    cinfo.in_color_space = JCS_GRAYSCALE;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.dct_method = JDCT_IFAST;
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * (size_t)stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_length = (size_t)length;
    return 0;
}
