#ifndef SCAND_LIBCAMERA_H
#define SCAND_LIBCAMERA_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A C view of libcamera (C++ only while it is at 0.x), for Swift.
 *
 * Every call that can fail returns 0 or a negative errno and writes what happened, in words, to
 * `err` (`errlen` bytes, NUL-terminated). No C++ exception crosses this boundary.
 *
 * One libcamera CameraManager per process (libcamera allows no second one): the shim starts it
 * on first use and stops it when the last camera handle and listing are done with it.
 */

/* A camera acquired for this process (Camera::acquire), with its configuration and buffers. */
typedef struct scand_lc_camera scand_lc_camera;

/* A control the camera offers, with its range (numeric controls as doubles; bools as 0/1). */
typedef struct scand_lc_control_info {
    char name[64];      /* libcamera's name, e.g. "ExposureTime", "AnalogueGain", "LensPosition" */
    int type;           /* libcamera::ControlType: 1 bool, 2 byte, 3 int32, 4 int64, 5 float, ... */
    double minimum;
    double maximum;
    double default_value;
} scand_lc_control_info;

/* One camera as listed by the manager (no acquire needed). */
typedef struct scand_lc_camera_info {
    char id[256];       /* libcamera's camera id, e.g. "/base/soc/i2c0mux/i2c@1/imx708@1a" */
    char model[128];    /* properties::Model, "" when the pipeline gives none */
    char formats[2048]; /* one line per pixel format: "NV12 64x64-1920x1080", "\n"-separated */
    int control_count;  /* the numeric controls, by name (at most 64) */
    scand_lc_control_info controls[64];
} scand_lc_camera_info;

/* The one stream as configured. */
typedef struct scand_lc_stream_info {
    int width;
    int height;
    int stride;         /* bytes per row of the first (luma) plane */
    char format[16];    /* libcamera's pixel format name: "R8", "NV12", "NV21", "YUV420", "YUYV", ... */
    int buffer_count;
} scand_lc_stream_info;

/* One completed request. */
typedef struct scand_lc_completion {
    int index;              /* the buffer/request index, 0..<buffer_count */
    int status;             /* 0 complete, 1 cancelled, 2 frame error */
    uint64_t timestamp_ns;  /* when the frame was captured: FrameMetadata::timestamp, ns (CLOCK_MONOTONIC, as V4L2 gives it) */
    unsigned sequence;
    size_t bytes_used;      /* of the first plane */
} scand_lc_completion;

/* libcamera's version (from <libcamera/version.h> at build time), e.g. "0.0.3". */
const char *scand_lc_version(void);

/* Lists the cameras libcamera finds, with their formats and controls: the count (>= 0) and, in
 * *out, a malloc'd array freed with free(); or a negative errno (the manager did not start). */
int scand_lc_list(scand_lc_camera_info **out, char *err, size_t errlen);

/* Acquires camera `id` (NULL or "": the first): -ENOENT when there is no such camera (or none),
 * -EBUSY when another process holds it. */
int scand_lc_acquire(const char *id, scand_lc_camera **out, char *err, size_t errlen);

/* Stops streaming, frees buffers and requests, releases the camera. NULL is fine. */
void scand_lc_release(scand_lc_camera *camera);

/* The acquired camera's id. */
const char *scand_lc_camera_id(const scand_lc_camera *camera);

/* Configures one stream (StreamRole::Viewfinder) of about width x height in the first of the
 * camera's formats scand takes (R8, NV12, NV21, YUV420, YVU420, YUYV, UYVY, RGB888, BGR888),
 * allocates `buffers` buffers (FrameBufferAllocator) and maps their first plane. */
int scand_lc_configure(scand_lc_camera *camera, int width, int height, int buffers, scand_lc_stream_info *info,
                       char *err, size_t errlen);

/* The mapped first plane of buffer `index`, or -EINVAL. */
int scand_lc_buffer(scand_lc_camera *camera, int index, const uint8_t **data, size_t *length);

/* Starts the camera and queues one request per buffer. */
int scand_lc_start(scand_lc_camera *camera, char *err, size_t errlen);

/* Stops the camera (pending requests come back cancelled and are dropped). Safe when stopped. */
void scand_lc_stop(scand_lc_camera *camera);

/* An eventfd that is readable while completed requests wait (or the camera went away). */
int scand_lc_event_fd(const scand_lc_camera *camera);

/* Takes the oldest completed request: 1 (in *out), 0 when none waits, -ENODEV when the camera
 * was disconnected. The eventfd is drained when none waits. */
int scand_lc_take_completed(scand_lc_camera *camera, scand_lc_completion *out);

/* Queues request `index` again (Request::reuse), with the controls set since. */
int scand_lc_requeue(scand_lc_camera *camera, int index, char *err, size_t errlen);

/* The controls the acquired camera offers: count, malloc'd array freed with free(). */
int scand_lc_controls(scand_lc_camera *camera, scand_lc_control_info **out, char *err, size_t errlen);

/* Sets control `name` (libcamera's name) to `value`, clamped to its range, for the next requests
 * (and the start, when not streaming); *taken: the value after clamping. -ENOENT: no such
 * control on this camera. */
int scand_lc_set_control(scand_lc_camera *camera, const char *name, double value, double *taken, char *err, size_t errlen);

/* Asks for `fps` frames per second (FrameDurationLimits: both ends 1e6/fps µs, clamped to the
 * camera's limits) for the next requests (and the start); *taken: the rate in effect then.
 * -ENOTSUP when the camera has no FrameDurationLimits. */
int scand_lc_set_frame_rate(scand_lc_camera *camera, int fps, int *taken, char *err, size_t errlen);

/* Starts one autofocus cycle (AfMode = Auto, AfTrigger = Start) with the next request. -ENOTSUP
 * when this libcamera has no autofocus controls (before 0.0.4) or the camera has no AfMode. */
int scand_lc_autofocus(scand_lc_camera *camera, char *err, size_t errlen);

/* How scand_lc_set_focus moves the lens. */
enum {
    /* AfMode = Auto: the lens stays put until scand_lc_autofocus starts a cycle. */
    SCAND_LC_FOCUS_ON_REQUEST = 0,
    /* AfMode = Continuous: the algorithm focuses on its own (AfTrigger is ignored in it). */
    SCAND_LC_FOCUS_CONTINUOUS = 1,
    /* AfMode = Manual (when the camera has AfMode) and LensPosition = `dioptres`. */
    SCAND_LC_FOCUS_MANUAL = 2,
};

/* Puts the lens in `mode` from the next request (and the start, when not streaming); for
 * SCAND_LC_FOCUS_MANUAL, *taken: the lens position after clamping to LensPosition's range.
 * -ENOTSUP when this libcamera has no autofocus controls (before 0.0.4), when the camera has no
 * AfMode (on request, continuous) or no LensPosition (manual); -EINVAL for another mode. */
int scand_lc_set_focus(scand_lc_camera *camera, int mode, double dioptres, double *taken, char *err, size_t errlen);

/* 0 while the camera is there; -ENODEV once libcamera reported it disconnected, or once a V4L2
 * or media device node libcamera holds open was removed (a driver unbound, a camera unplugged
 * that libcamera 0.0.3 does not report). A camera found gone is not stopped or released through
 * libcamera any more (0.0.3 aborts on requests a gone device never gave back): its objects are
 * kept until the process ends. */
int scand_lc_check(scand_lc_camera *camera, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
