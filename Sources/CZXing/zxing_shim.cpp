#define ZX_USE_UTF8 1
#include "scand_zxing.h"

#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include <ZXing/ReadBarcode.h>
#include <ZXing/Version.h>

using namespace ZXing;

/*
 * zxing-cpp 3.1, built by scripts/setup-zxing.sh from its release sources (Release: assertions
 * off). Should a build with assertions on trip one (Debian's 1.4 did, on some frames), it would
 * abort the process; a kiosk daemon must not die of one frame. While this thread is inside
 * zxing, SIGABRT jumps back here instead: the frame counts as unreadable (what zxing had
 * allocated in that call is lost). SIGABRT from anywhere else keeps its previous handling.
 */
static thread_local sigjmp_buf *inside_zxing = nullptr;
static struct sigaction previous_abort_action;
static std::once_flag abort_handler_installed;

static void on_abort(int sig) {
    if (inside_zxing != nullptr) {
        sigjmp_buf *jump = inside_zxing;
        inside_zxing = nullptr;
        siglongjmp(*jump, 1);
    }
    sigaction(SIGABRT, &previous_abort_action, nullptr);
    raise(sig);
}

static void install_abort_handler() {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_abort;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_NODEFER;
    sigaction(SIGABRT, &action, &previous_abort_action);
}

static int read_barcodes(const uint8_t *pixels, int width, int height, int stride, const scand_zx_options *o,
                         scand_zx_result **out, char *err, int errlen);

extern "C" int scand_zx_read(const uint8_t *pixels, int width, int height, int stride, const scand_zx_options *o,
                             scand_zx_result **out, char *err, int errlen) {
    *out = nullptr;
    std::call_once(abort_handler_installed, install_abort_handler);
    sigjmp_buf jump;
    if (sigsetjmp(jump, 1) != 0) {
        if (err && errlen > 0) snprintf(err, static_cast<size_t>(errlen), "zxing-cpp failed an internal assertion on this image (contained)");
        return -2;
    }
    inside_zxing = &jump;
    int count = read_barcodes(pixels, width, height, stride, o, out, err, errlen);
    inside_zxing = nullptr;
    return count;
}

/* Our format bits (zxing-cpp 1.4's) as 3.1's formats. Only the variants 1.4 read: Code 39 without
 * its Code 32 and PZN readings (the rules decide those), Aztec without runes (scand has its own
 * rune reader), DataBar without Limited, PDF417 without MicroPDF417; no rMQR, no MaxiCode. */
static BarcodeFormats requested_formats(unsigned bits) {
    using F = BarcodeFormat;
    struct Bit { unsigned bit; std::vector<F> formats; };
    static const Bit table[] = {
        {SCAND_ZX_AZTEC, {F::AztecCode}}, {SCAND_ZX_CODABAR, {F::Codabar}},
        {SCAND_ZX_CODE39, {F::Code39Std}}, {SCAND_ZX_CODE93, {F::Code93}}, {SCAND_ZX_CODE128, {F::Code128}},
        {SCAND_ZX_DATABAR, {F::DataBarOmni, F::DataBarStk, F::DataBarStkOmni}},
        {SCAND_ZX_DATABAR_EXP, {F::DataBarExp, F::DataBarExpStk}}, {SCAND_ZX_DATAMATRIX, {F::DataMatrix}},
        {SCAND_ZX_EAN8, {F::EAN8}}, {SCAND_ZX_EAN13, {F::EAN13}}, {SCAND_ZX_ITF, {F::ITF}},
        {SCAND_ZX_PDF417, {F::PDF417, F::CompactPDF417}}, {SCAND_ZX_QRCODE, {F::QRCodeModel1, F::QRCodeModel2}},
        {SCAND_ZX_UPCA, {F::UPCA}}, {SCAND_ZX_UPCE, {F::UPCE}}, {SCAND_ZX_MICROQR, {F::MicroQRCode}},
    };
    std::vector<F> formats;
    for (const auto &t : table)
        if (bits == 0 || (bits & t.bit)) formats.insert(formats.end(), t.formats.begin(), t.formats.end());
    return BarcodeFormats(std::move(formats));
}

/* A 3.1 result's format as our bit; 0 for what we did not ask for. */
static unsigned format_bit(BarcodeFormat f) {
    using F = BarcodeFormat;
    switch (f) {
    case F::Aztec: case F::AztecCode: return SCAND_ZX_AZTEC;
    case F::Codabar: return SCAND_ZX_CODABAR;
    case F::Code39: case F::Code39Std: return SCAND_ZX_CODE39;
    case F::Code93: return SCAND_ZX_CODE93;
    case F::Code128: return SCAND_ZX_CODE128;
    case F::DataBar: case F::DataBarOmni: case F::DataBarStk: case F::DataBarStkOmni: return SCAND_ZX_DATABAR;
    case F::DataBarExp: case F::DataBarExpStk: return SCAND_ZX_DATABAR_EXP;
    case F::DataMatrix: return SCAND_ZX_DATAMATRIX;
    case F::EAN8: return SCAND_ZX_EAN8;
    case F::EAN13: return SCAND_ZX_EAN13;
    case F::ITF: case F::ITF14: return SCAND_ZX_ITF;
    case F::PDF417: case F::CompactPDF417: return SCAND_ZX_PDF417;
    case F::QRCode: case F::QRCodeModel1: case F::QRCodeModel2: return SCAND_ZX_QRCODE;
    case F::MicroQRCode: return SCAND_ZX_MICROQR;
    case F::UPCA: return SCAND_ZX_UPCA;
    case F::UPCE: return SCAND_ZX_UPCE;
    default: return 0;
    }
}

static char *copy_string(const std::string &s) {
    auto *c = static_cast<char *>(malloc(s.size() + 1));
    if (c) memcpy(c, s.c_str(), s.size() + 1);
    return c;
}

static int read_barcodes(const uint8_t *pixels, int width, int height, int stride, const scand_zx_options *o,
                         scand_zx_result **out, char *err, int errlen) {
    try {
        ReaderOptions options;
        options.setFormats(requested_formats(o->formats));
        options.setTryHarder(o->try_harder != 0);
        options.setTryRotate(o->try_rotate != 0);
        options.setTryInvert(o->try_invert != 0);
        options.setTryDownscale(o->try_downscale != 0);
        options.setIsPure(o->is_pure != 0);
        options.setBinarizer(static_cast<Binarizer>(o->binarizer));
        if (o->max_symbols > 0) options.setMaxNumberOfSymbols(static_cast<uint8_t>(o->max_symbols));
        options.setEanAddOnSymbol(o->ean_addon == 2 ? EanAddOnSymbol::Require
                                  : o->ean_addon == 1 ? EanAddOnSymbol::Read : EanAddOnSymbol::Ignore);
        options.setTextMode(TextMode::Plain);
        ImageView image(pixels, width, height, ImageFormat::Lum, stride, 1);
        Barcodes barcodes = ReadBarcodes(image, options);
        struct Kept { const Barcode *barcode; unsigned format; };
        std::vector<Kept> kept;
        for (const auto &b : barcodes) {
            unsigned format = b.isValid() ? format_bit(b.format()) : 0;
            /* 3.1 takes a 4-digit ITF when ITF is all it looks for; a part of a longer ITF reads
             * so. Six digits, as 1.4 and zbar ask. */
            if (format == 0 || (format == SCAND_ZX_ITF && b.bytes().size() < 6)) continue;
            kept.push_back({&b, format});
        }
        if (kept.empty()) return 0;
        auto *list = static_cast<scand_zx_result *>(calloc(kept.size(), sizeof(scand_zx_result)));
        if (!list) return -1;
        const bool upca_wanted = o->formats == 0 || (o->formats & SCAND_ZX_UPCA);
        int count = 0;
        for (const Kept &k : kept) {
            const Barcode *b = k.barcode;
            scand_zx_result &x = list[count++];
            x.format = k.format;
            std::string text = b->text();
            std::vector<uint8_t> bytes = b->bytes();
            /* With an add-on, 3.1 gives the main code's digits and the add-on's as one text;
             * scand keeps the main code's as its content and the add-on beside it. */
            std::string addon = b->extra(BarcodeExtra::EanAddOn);
            if (!addon.empty() && addon.size() < sizeof(x.addon) && text.size() > addon.size()
                && text.compare(text.size() - addon.size(), addon.size(), addon) == 0) {
                std::string main = text.substr(0, text.size() - addon.size());
                while (!main.empty() && main.back() == ' ') main.pop_back();
                /* Only where the main code keeps its own length (EAN-8, or 13 digits: EAN-13,
                 * UPC-A and UPC-E as 3.1 gives them): a text that merely ends with the add-on's
                 * digits split there sent an 11-digit "EAN-13" with its last two as the add-on
                 * (a tryout: 4006381333931 as 40063813339 + 31). */
                if (main.size() == 8 || main.size() == 13) {
                    text = main;
                    bytes.assign(text.begin(), text.end());
                    memcpy(x.addon, addon.c_str(), addon.size() + 1);
                }
            }
            /* 3.1 gives UPC-A as a 13-digit EAN-13 and UPC-E expanded to 13 digits; scand reads them
             * as 1.4 did: UPC-A's 12 digits, UPC-E's own 8. */
            if (x.format == SCAND_ZX_UPCE) {
                std::string upce = b->extra(BarcodeExtra::UPCE);
                if (!upce.empty()) { text = upce; bytes.assign(upce.begin(), upce.end()); }
            } else if (x.format == SCAND_ZX_EAN13 && upca_wanted && text.size() == 13 && text[0] == '0') {
                x.format = SCAND_ZX_UPCA;
                text.erase(0, 1);
                bytes.assign(text.begin(), text.end());
            }
            x.text = copy_string(text);
            x.bytes_length = static_cast<int>(bytes.size());
            x.bytes = static_cast<uint8_t *>(malloc(bytes.size() ? bytes.size() : 1));
            if (x.bytes && !bytes.empty()) memcpy(x.bytes, bytes.data(), bytes.size());
            x.has_eci = b->hasECI() ? 1 : 0;
            x.content_type = static_cast<int>(b->contentType());
            const auto &p = b->position();
            const PointI pts[4] = {p.topLeft(), p.topRight(), p.bottomRight(), p.bottomLeft()};
            for (int k = 0; k < 4; k++) { x.corners[2 * k] = pts[k].x; x.corners[2 * k + 1] = pts[k].y; }
            std::string id = b->symbologyIdentifier();
            strncpy(x.symbology_id, id.c_str(), sizeof(x.symbology_id) - 1);
            /* 3.1 gives it as a decimal fraction ("0.25"); anything else counts as not given. */
            std::string uec = b->extra(BarcodeExtra::UEC);
            char *end = nullptr;
            double spare = uec.empty() ? -1 : strtod(uec.c_str(), &end);
            x.spare_ec_permille = (uec.empty() || end == uec.c_str() || !(spare >= 0 && spare <= 1)) ? -1 : static_cast<int>(spare * 1000 + 0.5);
        }
        *out = list;
        return count;
    } catch (const std::exception &e) {
        inside_zxing = nullptr;
        if (err && errlen > 0) { strncpy(err, e.what(), static_cast<size_t>(errlen - 1)); err[errlen - 1] = 0; }
        return -1;
    } catch (...) {
        inside_zxing = nullptr;
        if (err && errlen > 0) { strncpy(err, "unknown exception", static_cast<size_t>(errlen - 1)); err[errlen - 1] = 0; }
        return -1;
    }
}

extern "C" void scand_zx_free(scand_zx_result *results, int count) {
    if (!results) return;
    for (int i = 0; i < count; i++) { free(results[i].text); free(results[i].bytes); }
    free(results);
}

extern "C" const char *scand_zx_version(void) { return ZXING_VERSION_STR; }
