#define ZX_USE_UTF8 1
#include "scand_zxing.h"

#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>

#include <ZXing/ReadBarcode.h>

using namespace ZXing;

/*
 * Debian builds zxing-cpp 1.4 with assertions on, and some inputs trip them (e.g. the
 * `lineCount() == 1` assertion in Result::operator==, fixed upstream after 1.4). An assertion
 * aborts the process; a kiosk daemon must not die of one frame. While this thread is inside
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

static int read_barcodes(const uint8_t *pixels, int width, int height, int stride, const scand_zx_options *o,
                         scand_zx_result **out, char *err, int errlen) {
    try {
        DecodeHints hints;
        if (o->formats) hints.setFormats(static_cast<BarcodeFormat>(o->formats));
        hints.setTryHarder(o->try_harder != 0);
        hints.setTryRotate(o->try_rotate != 0);
        hints.setTryDownscale(o->try_downscale != 0);
        hints.setIsPure(o->is_pure != 0);
        hints.setBinarizer(static_cast<Binarizer>(o->binarizer));
        if (o->max_symbols > 0) hints.setMaxNumberOfSymbols(static_cast<uint8_t>(o->max_symbols));
        hints.setEanAddOnSymbol(EanAddOnSymbol::Ignore);
        ImageView image(pixels, width, height, ImageFormat::Lum, stride, 1);
        Results results = ReadBarcodes(image, hints);
        int count = 0;
        for (const auto &r : results) if (r.isValid()) count++;
        if (count == 0) return 0;
        auto *list = static_cast<scand_zx_result *>(calloc(static_cast<size_t>(count), sizeof(scand_zx_result)));
        if (!list) return -1;
        int i = 0;
        for (const auto &r : results) {
            if (!r.isValid()) continue;
            scand_zx_result &x = list[i++];
            x.format = static_cast<unsigned>(r.format());
            std::string text = r.text();
            x.text = static_cast<char *>(malloc(text.size() + 1));
            if (x.text) memcpy(x.text, text.c_str(), text.size() + 1);
            const ByteArray &bytes = r.bytes();
            x.bytes_length = static_cast<int>(bytes.size());
            x.bytes = static_cast<uint8_t *>(malloc(bytes.size() ? bytes.size() : 1));
            if (x.bytes && !bytes.empty()) memcpy(x.bytes, bytes.data(), bytes.size());
            x.has_eci = r.hasECI() ? 1 : 0;
            x.content_type = static_cast<int>(r.contentType());
            const auto &p = r.position();
            const PointI pts[4] = {p.topLeft(), p.topRight(), p.bottomRight(), p.bottomLeft()};
            for (int k = 0; k < 4; k++) { x.corners[2 * k] = pts[k].x; x.corners[2 * k + 1] = pts[k].y; }
            std::string id = r.symbologyIdentifier();
            strncpy(x.symbology_id, id.c_str(), sizeof(x.symbology_id) - 1);
        }
        *out = list;
        return count;
    } catch (const std::exception &e) {
        inside_zxing = nullptr;
        if (err && errlen > 0) { strncpy(err, e.what(), static_cast<size_t>(errlen - 1)); err[errlen - 1] = 0; }
        return -1;
    } catch (...) {
        if (err && errlen > 0) { strncpy(err, "unknown exception", static_cast<size_t>(errlen - 1)); err[errlen - 1] = 0; }
        return -1;
    }
}

extern "C" void scand_zx_free(scand_zx_result *results, int count) {
    if (!results) return;
    for (int i = 0; i < count; i++) { free(results[i].text); free(results[i].bytes); }
    free(results);
}
