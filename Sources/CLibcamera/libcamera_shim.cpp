#include "scand_libcamera.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libcamera/libcamera.h>
#include <libcamera/logging.h>
#include <libcamera/version.h>

using namespace libcamera;

/*
 * libcamera's API moved a little after Debian 12's 0.0.3: the autofocus controls (AfMode,
 * AfTrigger, LensPosition) came in 0.0.4, and `generateConfiguration` takes a Span of roles
 * (a std::vector converts to both). Controls are otherwise looked up by name in the camera's
 * ControlInfoMap, so the shim builds against any 0.x headers.
 */
#if LIBCAMERA_VERSION_MAJOR > 0 || LIBCAMERA_VERSION_MINOR > 0 || LIBCAMERA_VERSION_PATCH >= 4
#define SCAND_LC_HAS_AUTOFOCUS 1
#else
#define SCAND_LC_HAS_AUTOFOCUS 0
#endif

#define SCAND_STR2(x) #x
#define SCAND_STR(x) SCAND_STR2(x)

static int fail(char *err, size_t errlen, int code, const std::string &message) {
    if (err && errlen > 0) snprintf(err, errlen, "%s", message.c_str());
    return code;
}

/* The process's one CameraManager, started on first use, stopped with its last user. */
static std::mutex manager_lock;
static std::unique_ptr<CameraManager> manager;
static int manager_users = 0;

/* libcamera logs to stderr, which a service sends to the journal: warnings and errors only, and
 * no colour codes, unless the person asked otherwise (LIBCAMERA_LOG_LEVELS, LIBCAMERA_LOG_FILE). */
static void quiet_logging() {
    static std::once_flag once;
    std::call_once(once, [] {
        setenv("LIBCAMERA_LOG_LEVELS", "*:WARN", 0);
        if (!getenv("LIBCAMERA_LOG_FILE")) logSetStream(&std::cerr, false);
    });
}

static CameraManager *manager_take(int *rc, char *err, size_t errlen) {
    std::lock_guard<std::mutex> hold(manager_lock);
    quiet_logging();
    if (!manager) {
        auto m = std::make_unique<CameraManager>();
        int r = m->start();
        if (r < 0) {
            *rc = fail(err, errlen, r, std::string("CameraManager::start failed: ") + strerror(-r));
            return nullptr;
        }
        manager = std::move(m);
    }
    manager_users++;
    *rc = 0;
    return manager.get();
}

static void manager_drop() {
    std::lock_guard<std::mutex> hold(manager_lock);
    if (--manager_users == 0 && manager) {
        manager->stop();
        manager.reset();
    }
}

static bool value_as_double(const ControlValue &v, double *out) {
    if (v.isArray()) return false;
    switch (v.type()) {
    case ControlTypeBool: *out = v.get<bool>() ? 1 : 0; return true;
    case ControlTypeByte: *out = v.get<uint8_t>(); return true;
    case ControlTypeInteger32: *out = v.get<int32_t>(); return true;
    case ControlTypeInteger64: *out = (double)v.get<int64_t>(); return true;
    case ControlTypeFloat: *out = v.get<float>(); return true;
    default: return false;
    }
}

static int describe_controls(const ControlInfoMap &map, scand_lc_control_info **out, char *err, size_t errlen) {
    std::vector<scand_lc_control_info> list;
    for (const auto &entry : map) {
        const ControlId *id = entry.first;
        const ControlInfo &info = entry.second;
        scand_lc_control_info c;
        memset(&c, 0, sizeof c);
        snprintf(c.name, sizeof c.name, "%s", id->name().c_str());
        c.type = (int)id->type();
        if (!value_as_double(info.min(), &c.minimum) || !value_as_double(info.max(), &c.maximum)) continue;
        if (!value_as_double(info.def(), &c.default_value)) c.default_value = c.minimum;
        list.push_back(c);
    }
    std::sort(list.begin(), list.end(), [](const auto &a, const auto &b) { return strcmp(a.name, b.name) < 0; });
    *out = (scand_lc_control_info *)calloc(list.size() + 1, sizeof(scand_lc_control_info));
    if (!*out) return fail(err, errlen, -ENOMEM, "out of memory");
    std::copy(list.begin(), list.end(), *out);
    return (int)list.size();
}

static std::unique_ptr<CameraConfiguration> viewfinder_config(Camera *cam) {
    std::vector<StreamRole> roles{StreamRole::Viewfinder};
    return cam->generateConfiguration(roles);
}

extern "C" const char *scand_lc_version(void) {
    return SCAND_STR(LIBCAMERA_VERSION_MAJOR) "." SCAND_STR(LIBCAMERA_VERSION_MINOR) "." SCAND_STR(LIBCAMERA_VERSION_PATCH);
}

extern "C" int scand_lc_list(scand_lc_camera_info **out, char *err, size_t errlen) {
    *out = nullptr;
    int rc = 0;
    CameraManager *m = manager_take(&rc, err, errlen);
    if (!m) return rc;
    try {
        auto cameras = m->cameras();
        *out = (scand_lc_camera_info *)calloc(cameras.size() + 1, sizeof(scand_lc_camera_info));
        if (!*out) rc = fail(err, errlen, -ENOMEM, "out of memory");
        for (size_t i = 0; *out && i < cameras.size(); i++) {
            scand_lc_camera_info &info = (*out)[i];
            snprintf(info.id, sizeof info.id, "%s", cameras[i]->id().c_str());
            auto model = cameras[i]->properties().get(properties::Model);
            snprintf(info.model, sizeof info.model, "%s", model ? model->c_str() : "");
            std::string formats;
            if (auto config = viewfinder_config(cameras[i].get()); config && !config->empty()) {
                const StreamFormats &f = config->at(0).formats();
                for (const PixelFormat &pf : f.pixelformats()) {
                    SizeRange r = f.range(pf);
                    if (!formats.empty()) formats += "\n";
                    formats += pf.toString() + " " + r.min.toString() + "-" + r.max.toString();
                }
            }
            snprintf(info.formats, sizeof info.formats, "%s", formats.c_str());
            scand_lc_control_info *controls = nullptr;
            int n = describe_controls(cameras[i]->controls(), &controls, err, errlen);
            info.control_count = std::min(std::max(n, 0), (int)(sizeof info.controls / sizeof info.controls[0]));
            if (controls) std::copy(controls, controls + info.control_count, info.controls);
            free(controls);
        }
        if (*out) rc = (int)cameras.size();
    } catch (const std::exception &e) {
        free(*out);
        *out = nullptr;
        rc = fail(err, errlen, -EIO, std::string("libcamera: ") + e.what());
    }
    manager_drop();
    return rc;
}

struct scand_lc_camera {
    std::shared_ptr<Camera> cam;
    std::string id;
    std::unique_ptr<CameraConfiguration> config;
    std::unique_ptr<FrameBufferAllocator> allocator;
    Stream *stream = nullptr;
    std::vector<std::unique_ptr<Request>> requests;
    struct Mapping { void *base; size_t length; const uint8_t *plane; size_t plane_length; };
    std::vector<Mapping> maps;
    int efd = -1;

    /* Streaming state and the controls for the next request: the caller's threads. */
    std::mutex state_lock;
    bool running = false;
    std::map<unsigned int, ControlValue> pending;

    /* Completed requests: filled on libcamera's thread. */
    std::mutex done_lock;
    std::deque<scand_lc_completion> done;
    bool disconnected = false;
    /* Gone without libcamera knowing (see gone_device_node): libcamera is not called again for
     * this camera, whose objects are kept, never freed. */
    bool lost = false;

    void signal() {
        uint64_t one = 1;
        ssize_t n = write(efd, &one, sizeof one);
        (void)n;
    }

    void onCompleted(Request *request) {
        scand_lc_completion c;
        memset(&c, 0, sizeof c);
        c.index = (int)request->cookie();
        if (request->status() == Request::RequestCancelled) {
            c.status = 1;
        } else {
            auto it = request->buffers().find(stream);
            if (it != request->buffers().end()) {
                const FrameMetadata &md = it->second->metadata();
                c.status = md.status == FrameMetadata::FrameSuccess ? 0 : (md.status == FrameMetadata::FrameCancelled ? 1 : 2);
                c.timestamp_ns = md.timestamp;
                c.sequence = md.sequence;
                if (!md.planes().empty()) c.bytes_used = md.planes()[0].bytesused;
            } else {
                c.status = 2;
            }
        }
        std::lock_guard<std::mutex> hold(done_lock);
        done.push_back(c);
        signal();
    }

    void onDisconnected() {
        std::lock_guard<std::mutex> hold(done_lock);
        disconnected = true;
        signal();
    }

    void applyPending(ControlList &list) {
        for (auto &entry : pending) list.set(entry.first, entry.second);
        pending.clear();
    }

    void unmap() {
        for (auto &m : maps) munmap(m.base, m.length);
        maps.clear();
    }

    void freeStream() {
        requests.clear();
        unmap();
        if (allocator && stream) allocator->free(stream);
        allocator.reset();
        stream = nullptr;
        config.reset();
    }
};

extern "C" int scand_lc_acquire(const char *id, scand_lc_camera **out, char *err, size_t errlen) {
    *out = nullptr;
    int rc = 0;
    CameraManager *m = manager_take(&rc, err, errlen);
    if (!m) return rc;
    try {
        std::shared_ptr<Camera> cam;
        if (id && *id) {
            cam = m->get(id);
            if (!cam) {
                manager_drop();
                return fail(err, errlen, -ENOENT, std::string("libcamera finds no camera ") + id);
            }
        } else {
            auto cameras = m->cameras();
            if (cameras.empty()) {
                manager_drop();
                return fail(err, errlen, -ENOENT, "libcamera finds no camera");
            }
            cam = cameras.front();
        }
        rc = cam->acquire();
        if (rc < 0) {
            std::string what = rc == -EBUSY ? "is in use by another process" : std::string("cannot be acquired: ") + strerror(-rc);
            cam.reset();
            manager_drop();
            return fail(err, errlen, rc, "camera " + (id && *id ? std::string(id) : std::string("(the first)")) + " " + what);
        }
        auto *c = new scand_lc_camera();
        c->cam = cam;
        c->id = cam->id();
        c->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (c->efd < 0) {
            int code = errno;
            cam->release();
            delete c;
            manager_drop();
            return fail(err, errlen, -code, std::string("eventfd: ") + strerror(code));
        }
        cam->requestCompleted.connect(c, &scand_lc_camera::onCompleted);
        cam->disconnected.connect(c, &scand_lc_camera::onDisconnected);
        *out = c;
        return 0;
    } catch (const std::exception &e) {
        manager_drop();
        return fail(err, errlen, -EIO, std::string("libcamera: ") + e.what());
    }
}

/* What a lost camera leaves: libcamera's objects for it, which cannot be stopped or freed
 * without libcamera 0.0.3 aborting on the requests its gone device never gave back. They are
 * kept for the life of the process (a few descriptors and buffers per camera lost); the
 * CameraManager is made anew (manager_drop), so a camera bound again is found afresh. */
struct lost_camera {
    std::shared_ptr<Camera> cam;
    std::unique_ptr<CameraConfiguration> config;
    std::unique_ptr<FrameBufferAllocator> allocator;
    std::vector<std::unique_ptr<Request>> requests;
};

extern "C" void scand_lc_release(scand_lc_camera *c) {
    if (!c) return;
    scand_lc_stop(c);
    c->cam->requestCompleted.disconnect(c);
    c->cam->disconnected.disconnect(c);
    bool lost;
    {
        std::lock_guard<std::mutex> hold(c->done_lock);
        lost = c->lost;
    }
    if (lost) {
        c->unmap();
        new lost_camera{std::move(c->cam), std::move(c->config), std::move(c->allocator), std::move(c->requests)};
    } else {
        c->freeStream();
        c->cam->release();
        c->cam.reset();
    }
    if (c->efd >= 0) close(c->efd);
    delete c;
    manager_drop();
}

extern "C" const char *scand_lc_camera_id(const scand_lc_camera *c) { return c->id.c_str(); }

/* scand's formats in its order: gray first, then planar YUV (luma plane as it is), then packed,
 * then packed RGB (luma computed per pixel; vimc's pipeline gives only RGB888 and BGR888). */
static const PixelFormat preferred[] = {
    formats::R8, formats::NV12, formats::NV21, formats::YUV420, formats::YVU420, formats::YUYV, formats::UYVY,
    formats::RGB888, formats::BGR888,
};

extern "C" int scand_lc_configure(scand_lc_camera *c, int width, int height, int buffers, scand_lc_stream_info *info,
                                  char *err, size_t errlen) {
    std::lock_guard<std::mutex> hold(c->state_lock);
    if (c->running) return fail(err, errlen, -EBUSY, "the camera is streaming: stop it first");
    try {
        c->freeStream();
        c->config = viewfinder_config(c->cam.get());
        if (!c->config || c->config->empty())
            return fail(err, errlen, -EINVAL, "Camera::generateConfiguration gave no viewfinder stream");
        StreamConfiguration &sc = c->config->at(0);
        auto offered = sc.formats().pixelformats();
        const PixelFormat *choice = nullptr;
        for (const PixelFormat &pf : preferred)
            if (std::find(offered.begin(), offered.end(), pf) != offered.end()) { choice = &pf; break; }
        if (!choice) {
            std::string names;
            for (const PixelFormat &pf : offered) names += (names.empty() ? "" : ", ") + pf.toString();
            return fail(err, errlen, -EINVAL, "the camera offers " + names + "; scand takes R8, NV12, NV21, YUV420, YVU420, YUYV, UYVY, RGB888, BGR888");
        }
        sc.pixelFormat = *choice;
        sc.size = Size(width, height);
        sc.bufferCount = buffers;
        if (c->config->validate() == CameraConfiguration::Invalid)
            return fail(err, errlen, -EINVAL, "CameraConfiguration::validate: " + sc.toString() + " is invalid");
        if (std::find(std::begin(preferred), std::end(preferred), sc.pixelFormat) == std::end(preferred))
            return fail(err, errlen, -EINVAL, "CameraConfiguration::validate changed the format to " + sc.pixelFormat.toString());
        int rc = c->cam->configure(c->config.get());
        if (rc < 0) return fail(err, errlen, rc, std::string("Camera::configure: ") + strerror(-rc));
        c->stream = sc.stream();
        c->allocator = std::make_unique<FrameBufferAllocator>(c->cam);
        rc = c->allocator->allocate(c->stream);
        if (rc < 0) return fail(err, errlen, rc, std::string("FrameBufferAllocator::allocate: ") + strerror(-rc));
        long page = sysconf(_SC_PAGESIZE);
        const auto &list = c->allocator->buffers(c->stream);
        for (size_t i = 0; i < list.size(); i++) {
            const FrameBuffer::Plane &plane = list[i]->planes()[0];
            size_t offset = plane.offset == FrameBuffer::Plane::kInvalidOffset ? 0 : plane.offset;
            size_t aligned = offset & ~(size_t)(page - 1);
            size_t length = plane.length + (offset - aligned);
            void *base = mmap(nullptr, length, PROT_READ, MAP_SHARED, plane.fd.get(), (off_t)aligned);
            if (base == MAP_FAILED) {
                int code = errno;
                c->freeStream();
                return fail(err, errlen, -code, std::string("mmap of buffer ") + std::to_string(i) + ": " + strerror(code));
            }
            c->maps.push_back({base, length, (const uint8_t *)base + (offset - aligned), plane.length});
            std::unique_ptr<Request> request = c->cam->createRequest(i);
            if (!request) { c->freeStream(); return fail(err, errlen, -ENOMEM, "Camera::createRequest failed"); }
            rc = request->addBuffer(c->stream, list[i].get());
            if (rc < 0) { c->freeStream(); return fail(err, errlen, rc, std::string("Request::addBuffer: ") + strerror(-rc)); }
            c->requests.push_back(std::move(request));
        }
        info->width = (int)sc.size.width;
        info->height = (int)sc.size.height;
        info->stride = (int)sc.stride;
        snprintf(info->format, sizeof info->format, "%s", sc.pixelFormat.toString().c_str());
        info->buffer_count = (int)c->requests.size();
        return 0;
    } catch (const std::exception &e) {
        return fail(err, errlen, -EIO, std::string("libcamera: ") + e.what());
    }
}

extern "C" int scand_lc_buffer(scand_lc_camera *c, int index, const uint8_t **data, size_t *length) {
    if (index < 0 || (size_t)index >= c->maps.size()) return -EINVAL;
    *data = c->maps[index].plane;
    *length = c->maps[index].plane_length;
    return 0;
}

extern "C" int scand_lc_start(scand_lc_camera *c, char *err, size_t errlen) {
    std::lock_guard<std::mutex> hold(c->state_lock);
    if (c->running) return 0;
    if (c->requests.empty()) return fail(err, errlen, -EINVAL, "the camera is not configured");
    try {
        /* The controls set while idle go with the start and again with the first request: some
         * pipelines (vimc in 0.0.3) ignore the start's. */
        ControlList initial(c->cam->controls());
        for (auto &entry : c->pending) initial.set(entry.first, entry.second);
        int rc = c->cam->start(&initial);
        if (rc < 0) return fail(err, errlen, rc, std::string("Camera::start: ") + strerror(-rc));
        c->running = true;
        for (auto &request : c->requests) {
            /* A request the last Camera::stop cancelled must be reused before it is queued again:
             * libcamera 0.0.3 aborts on a cancelled one (request.cpp:117, RequestPending). */
            request->reuse(Request::ReuseBuffers);
            c->applyPending(request->controls());
            rc = c->cam->queueRequest(request.get());
            if (rc < 0) {
                c->cam->stop();
                c->running = false;
                return fail(err, errlen, rc, std::string("Camera::queueRequest: ") + strerror(-rc));
            }
        }
        return 0;
    } catch (const std::exception &e) {
        return fail(err, errlen, -EIO, std::string("libcamera: ") + e.what());
    }
}

extern "C" void scand_lc_stop(scand_lc_camera *c) {
    {
        std::lock_guard<std::mutex> hold(c->state_lock);
        if (!c->running) return;
        c->running = false;
        bool lost;
        {
            std::lock_guard<std::mutex> done_hold(c->done_lock);
            lost = c->lost;
        }
        /* A lost camera's queued requests never come back, and Camera::stop would abort on them. */
        if (!lost) c->cam->stop(); /* pending requests complete as cancelled, on this thread */
    }
    std::lock_guard<std::mutex> hold(c->done_lock);
    c->done.clear();
    uint64_t count;
    ssize_t n = read(c->efd, &count, sizeof count);
    (void)n;
}

extern "C" int scand_lc_event_fd(const scand_lc_camera *c) { return c->efd; }

extern "C" int scand_lc_take_completed(scand_lc_camera *c, scand_lc_completion *out) {
    std::lock_guard<std::mutex> hold(c->done_lock);
    if (!c->done.empty()) {
        *out = c->done.front();
        c->done.pop_front();
        return 1;
    }
    if (c->disconnected || c->lost) return -ENODEV;
    uint64_t count;
    ssize_t n = read(c->efd, &count, sizeof count); /* under the lock: no completion slips past */
    (void)n;
    return 0;
}

extern "C" int scand_lc_requeue(scand_lc_camera *c, int index, char *err, size_t errlen) {
    std::lock_guard<std::mutex> hold(c->state_lock);
    if (!c->running) return 0; /* stopped meanwhile: the buffer waits for the next start */
    {
        std::lock_guard<std::mutex> hold(c->done_lock);
        if (c->lost) return fail(err, errlen, -ENODEV, "the camera is gone");
    }
    if (index < 0 || (size_t)index >= c->requests.size()) return fail(err, errlen, -EINVAL, "no request " + std::to_string(index));
    try {
        Request *request = c->requests[index].get();
        request->reuse(Request::ReuseBuffers);
        c->applyPending(request->controls());
        int rc = c->cam->queueRequest(request);
        if (rc < 0) return fail(err, errlen, rc, std::string("Camera::queueRequest: ") + strerror(-rc));
        return 0;
    } catch (const std::exception &e) {
        return fail(err, errlen, -EIO, std::string("libcamera: ") + e.what());
    }
}

extern "C" int scand_lc_controls(scand_lc_camera *c, scand_lc_control_info **out, char *err, size_t errlen) {
    *out = nullptr;
    try {
        return describe_controls(c->cam->controls(), out, err, errlen);
    } catch (const std::exception &e) {
        return fail(err, errlen, -EIO, std::string("libcamera: ") + e.what());
    }
}

extern "C" int scand_lc_set_control(scand_lc_camera *c, const char *name, double value, double *taken, char *err, size_t errlen) {
    std::lock_guard<std::mutex> hold(c->state_lock);
    try {
        for (const auto &entry : c->cam->controls()) {
            const ControlId *id = entry.first;
            if (id->name() != name) continue;
            double lo, hi;
            if (value_as_double(entry.second.min(), &lo) && value_as_double(entry.second.max(), &hi) && lo <= hi)
                value = std::min(std::max(value, lo), hi);
            ControlValue v;
            switch (id->type()) {
            case ControlTypeBool: v = ControlValue(value != 0); value = value != 0; break;
            case ControlTypeByte: v = ControlValue((uint8_t)std::lround(value)); value = std::lround(value); break;
            case ControlTypeInteger32: v = ControlValue((int32_t)std::lround(value)); value = std::lround(value); break;
            case ControlTypeInteger64: v = ControlValue((int64_t)std::llround(value)); value = (double)std::llround(value); break;
            case ControlTypeFloat: v = ControlValue((float)value); break;
            default: return fail(err, errlen, -EINVAL, std::string("control ") + name + " is not a number");
            }
            c->pending[id->id()] = v;
            *taken = value;
            return 0;
        }
        return fail(err, errlen, -ENOENT, std::string("the camera has no control ") + name);
    } catch (const std::exception &e) {
        return fail(err, errlen, -EIO, std::string("libcamera: ") + e.what());
    }
}

extern "C" int scand_lc_set_frame_rate(scand_lc_camera *c, int fps, int *taken, char *err, size_t errlen) {
    std::lock_guard<std::mutex> hold(c->state_lock);
    try {
        const ControlInfoMap &map = c->cam->controls();
        auto it = map.find(controls::FrameDurationLimits.id());
        if (it == map.end()) return fail(err, errlen, -ENOTSUP, "the camera has no FrameDurationLimits");
        int64_t duration = 1000000 / std::max(1, fps);
        const ControlInfo &info = it->second;
        if (info.min().type() == ControlTypeInteger64 && !info.min().isArray()) duration = std::max(duration, info.min().get<int64_t>());
        if (info.max().type() == ControlTypeInteger64 && !info.max().isArray() && info.max().get<int64_t>() > 0)
            duration = std::min(duration, info.max().get<int64_t>());
        const int64_t limits[2] = { duration, duration };
        c->pending[controls::FrameDurationLimits.id()] = ControlValue(Span<const int64_t, 2>(limits));
        *taken = (int)std::lround(1e6 / (double)duration);
        return 0;
    } catch (const std::exception &e) {
        return fail(err, errlen, -EIO, std::string("libcamera: ") + e.what());
    }
}

extern "C" int scand_lc_autofocus(scand_lc_camera *c, char *err, size_t errlen) {
#if SCAND_LC_HAS_AUTOFOCUS
    std::lock_guard<std::mutex> hold(c->state_lock);
    const ControlInfoMap &map = c->cam->controls();
    if (map.find(controls::AfMode.id()) == map.end() || map.find(controls::AfTrigger.id()) == map.end())
        return fail(err, errlen, -ENOTSUP, "the camera has no autofocus (AfMode)");
    c->pending[controls::AfMode.id()] = ControlValue((int32_t)controls::AfModeAuto);
    c->pending[controls::AfTrigger.id()] = ControlValue((int32_t)controls::AfTriggerStart);
    return 0;
#else
    (void)c;
    return fail(err, errlen, -ENOTSUP, "libcamera " SCAND_STR(LIBCAMERA_VERSION_MAJOR) "." SCAND_STR(LIBCAMERA_VERSION_MINOR) "."
                SCAND_STR(LIBCAMERA_VERSION_PATCH) " has no autofocus controls (AfMode came in 0.0.4)");
#endif
}

extern "C" int scand_lc_set_focus(scand_lc_camera *c, int mode, double dioptres, double *taken, char *err, size_t errlen) {
#if SCAND_LC_HAS_AUTOFOCUS
    std::lock_guard<std::mutex> hold(c->state_lock);
    try {
        const ControlInfoMap &map = c->cam->controls();
        bool hasAfMode = map.find(controls::AfMode.id()) != map.end();
        switch (mode) {
        case SCAND_LC_FOCUS_ON_REQUEST:
        case SCAND_LC_FOCUS_CONTINUOUS:
            if (!hasAfMode) return fail(err, errlen, -ENOTSUP, "the camera has no autofocus (AfMode)");
            if (mode == SCAND_LC_FOCUS_ON_REQUEST) {
                c->pending[controls::AfMode.id()] = ControlValue((int32_t)controls::AfModeAuto);
            } else {
                c->pending[controls::AfMode.id()] = ControlValue((int32_t)controls::AfModeContinuous);
            }
            return 0;
        case SCAND_LC_FOCUS_MANUAL: {
            auto it = map.find(controls::LensPosition.id());
            if (it == map.end()) return fail(err, errlen, -ENOTSUP, "the camera has no lens position control (LensPosition)");
            double lo, hi;
            if (value_as_double(it->second.min(), &lo) && value_as_double(it->second.max(), &hi) && lo <= hi)
                dioptres = std::min(std::max(dioptres, lo), hi);
            if (hasAfMode) c->pending[controls::AfMode.id()] = ControlValue((int32_t)controls::AfModeManual);
            c->pending[controls::LensPosition.id()] = ControlValue((float)dioptres);
            if (taken) *taken = dioptres;
            return 0;
        }
        default:
            return fail(err, errlen, -EINVAL, "focus mode " + std::to_string(mode) + " is not one scand knows");
        }
    } catch (const std::exception &e) {
        return fail(err, errlen, -EIO, std::string("libcamera: ") + e.what());
    }
#else
    (void)c; (void)mode; (void)dioptres; (void)taken;
    return fail(err, errlen, -ENOTSUP, "libcamera " SCAND_STR(LIBCAMERA_VERSION_MAJOR) "." SCAND_STR(LIBCAMERA_VERSION_MINOR) "."
                SCAND_STR(LIBCAMERA_VERSION_PATCH) " has no autofocus controls (AfMode came in 0.0.4)");
#endif
}

/* A V4L2 or media device node this process holds open that was removed (its descriptor's link
 * reads "/dev/video3 (deleted)"), or "". libcamera 0.0.3 reports an unplugged camera only for
 * UVC; a platform camera's driver unbound (vimc, a CSI receiver) leaves its requests queued on
 * the gone node. scand opens no V4L2 node itself with the libcamera backend: the nodes held are
 * libcamera's. */
static std::mutex kept_lock;
static std::set<int> kept_fds; /* a lost camera's descriptors, never closed: not a camera gone again */

static std::string gone_device_node(bool keep) {
    DIR *dir = opendir("/proc/self/fd");
    if (!dir) return "";
    std::lock_guard<std::mutex> hold(kept_lock);
    std::string gone;
    while (struct dirent *entry = readdir(dir)) {
        if (entry->d_name[0] == '.') continue;
        int fd = atoi(entry->d_name);
        if (kept_fds.count(fd)) continue;
        char link[128];
        std::string path = std::string("/proc/self/fd/") + entry->d_name;
        ssize_t n = readlink(path.c_str(), link, sizeof link - 1);
        if (n <= 0) continue;
        std::string target(link, (size_t)n);
        static const std::string suffix = " (deleted)";
        bool device = target.rfind("/dev/video", 0) == 0 || target.rfind("/dev/media", 0) == 0 || target.rfind("/dev/v4l-subdev", 0) == 0;
        if (device && target.size() > suffix.size() && target.compare(target.size() - suffix.size(), suffix.size(), suffix) == 0) {
            if (gone.empty()) gone = target.substr(0, target.size() - suffix.size());
            if (!keep) break;
            kept_fds.insert(fd);
        }
    }
    closedir(dir);
    return gone;
}

extern "C" int scand_lc_check(scand_lc_camera *c, char *err, size_t errlen) {
    {
        std::lock_guard<std::mutex> hold(c->done_lock);
        if (c->disconnected) return fail(err, errlen, -ENODEV, "libcamera reported the camera disconnected");
        if (c->lost) return fail(err, errlen, -ENODEV, "the camera is gone");
    }
    if (gone_device_node(false).empty()) return 0;
    /* Gone: its descriptors stay open with the objects kept, and are passed over from now on. */
    std::string gone = gone_device_node(true);
    std::lock_guard<std::mutex> hold(c->done_lock);
    c->lost = true;
    c->signal();
    return fail(err, errlen, -ENODEV, "its device node " + gone + " was removed (driver unbound or unplugged)");
}
