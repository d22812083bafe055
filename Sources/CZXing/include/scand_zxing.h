#ifndef SCAND_ZXING_H
#define SCAND_ZXING_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A C view of zxing-cpp 3.1's reader, for Swift. */

/* Symbologies as bits (zxing-cpp 1.4's BarcodeFormat values; the shim maps them onto 3.1's formats). */
enum {
    SCAND_ZX_AZTEC = 1 << 0, SCAND_ZX_CODABAR = 1 << 1, SCAND_ZX_CODE39 = 1 << 2, SCAND_ZX_CODE93 = 1 << 3,
    SCAND_ZX_CODE128 = 1 << 4, SCAND_ZX_DATABAR = 1 << 5, SCAND_ZX_DATABAR_EXP = 1 << 6, SCAND_ZX_DATAMATRIX = 1 << 7,
    SCAND_ZX_EAN8 = 1 << 8, SCAND_ZX_EAN13 = 1 << 9, SCAND_ZX_ITF = 1 << 10, SCAND_ZX_MAXICODE = 1 << 11,
    SCAND_ZX_PDF417 = 1 << 12, SCAND_ZX_QRCODE = 1 << 13, SCAND_ZX_UPCA = 1 << 14, SCAND_ZX_UPCE = 1 << 15,
    SCAND_ZX_MICROQR = 1 << 16
};

typedef struct scand_zx_options {
    unsigned formats;       /* 0: all */
    int try_harder;
    int try_rotate;
    int try_invert;         /* also read light-on-dark codes */
    int try_downscale;
    int binarizer;          /* 0 local average, 1 global histogram, 2 fixed threshold, 3 bool cast */
    int max_symbols;        /* 0: no limit */
    int is_pure;
    int ean_addon;          /* EAN-2/EAN-5 add-ons: 0 ignore, 1 read when present, 2 require */
} scand_zx_options;

typedef struct scand_zx_result {
    unsigned format;
    char *text;             /* UTF-8, ECI applied; malloc'd */
    uint8_t *bytes;         /* the content bytes exactly as encoded; malloc'd */
    int bytes_length;
    int has_eci;
    int content_type;       /* 0 text, 1 binary, 2 mixed, 3 GS1, 4 ISO15434, 5 unknown ECI */
    int corners[8];         /* x,y of top-left, top-right, bottom-right, bottom-left */
    char symbology_id[8];   /* AIM identifier, e.g. "]Q1" */
    int spare_ec_permille;  /* the error correction the read left unused, 0-1000 (-1: not given) */
    char addon[8];          /* the EAN-2/EAN-5 add-on's digits, when one was read ("": none) */
} scand_zx_result;

/* Reads every code in an 8-bit gray image. Returns the number of results (0 when none, -1 on
 * an exception, -2 when zxing-cpp failed an assertion, which is contained; the message is in err)
 * and a malloc'd array in *out, freed with
 * scand_zx_free. */
int scand_zx_read(const uint8_t *pixels, int width, int height, int stride, const scand_zx_options *options,
                  scand_zx_result **out, char *err, int errlen);

void scand_zx_free(scand_zx_result *results, int count);

/* The zxing-cpp version scand is linked with (statically), e.g. "3.1.1". */
const char *scand_zx_version(void);

#ifdef __cplusplus
}
#endif
#endif
