#ifndef SCAND_CV4L2_SHIM_H
#define SCAND_CV4L2_SHIM_H
/*
 * The kernel's videodev2 API and libv4l2. Swift imports neither the VIDIOC_* request macros
 * (built from _IOR/_IOWR) nor variadic functions (ioctl, v4l2_ioctl, v4l2_open), so this header
 * gives them as constants and fixed-arity wrappers.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/videodev2.h>
#include <libv4l2.h>

static const unsigned long scand_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long scand_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long scand_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long scand_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long scand_VIDIOC_TRY_FMT = VIDIOC_TRY_FMT;
static const unsigned long scand_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long scand_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long scand_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long scand_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long scand_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long scand_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long scand_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long scand_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
static const unsigned long scand_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long scand_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long scand_VIDIOC_QUERYCTRL = VIDIOC_QUERYCTRL;
static const unsigned long scand_VIDIOC_QUERYMENU = VIDIOC_QUERYMENU;
static const unsigned long scand_VIDIOC_G_CTRL = VIDIOC_G_CTRL;
static const unsigned long scand_VIDIOC_S_CTRL = VIDIOC_S_CTRL;
static const unsigned long scand_VIDIOC_QUERY_EXT_CTRL = VIDIOC_QUERY_EXT_CTRL;

static const uint32_t scand_V4L2_PIX_FMT_GREY = V4L2_PIX_FMT_GREY;
static const uint32_t scand_V4L2_PIX_FMT_YUYV = V4L2_PIX_FMT_YUYV;
static const uint32_t scand_V4L2_PIX_FMT_UYVY = V4L2_PIX_FMT_UYVY;
static const uint32_t scand_V4L2_PIX_FMT_NV12 = V4L2_PIX_FMT_NV12;
static const uint32_t scand_V4L2_PIX_FMT_NV21 = V4L2_PIX_FMT_NV21;
static const uint32_t scand_V4L2_PIX_FMT_YUV420 = V4L2_PIX_FMT_YUV420;
static const uint32_t scand_V4L2_PIX_FMT_MJPEG = V4L2_PIX_FMT_MJPEG;
static const uint32_t scand_V4L2_PIX_FMT_JPEG = V4L2_PIX_FMT_JPEG;
static const uint32_t scand_V4L2_PIX_FMT_RGB24 = V4L2_PIX_FMT_RGB24;

static const uint32_t scand_V4L2_CID_BRIGHTNESS = V4L2_CID_BRIGHTNESS;
static const uint32_t scand_V4L2_CID_CONTRAST = V4L2_CID_CONTRAST;
static const uint32_t scand_V4L2_CID_GAIN = V4L2_CID_GAIN;
static const uint32_t scand_V4L2_CID_SHARPNESS = V4L2_CID_SHARPNESS;
static const uint32_t scand_V4L2_CID_POWER_LINE_FREQUENCY = V4L2_CID_POWER_LINE_FREQUENCY;
static const uint32_t scand_V4L2_CID_AUTO_WHITE_BALANCE = V4L2_CID_AUTO_WHITE_BALANCE;
static const uint32_t scand_V4L2_CID_EXPOSURE_AUTO = V4L2_CID_EXPOSURE_AUTO;
static const uint32_t scand_V4L2_CID_EXPOSURE_ABSOLUTE = V4L2_CID_EXPOSURE_ABSOLUTE;
static const uint32_t scand_V4L2_CID_FOCUS_AUTO = V4L2_CID_FOCUS_AUTO;
static const uint32_t scand_V4L2_CID_FOCUS_ABSOLUTE = V4L2_CID_FOCUS_ABSOLUTE;
static const uint32_t scand_V4L2_CID_AUTO_FOCUS_START = V4L2_CID_AUTO_FOCUS_START;
static const uint32_t scand_V4L2_CTRL_FLAG_NEXT_CTRL = V4L2_CTRL_FLAG_NEXT_CTRL;

/// mmap(2) of a buffer for reading.
static inline void *scand_mmap_read(int fd, size_t length, long offset) {
    void *p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
    return p == MAP_FAILED ? NULL : p;
}
/// v4l2_mmap from libv4l2 (buffers of converted frames).
static inline void *scand_v4l2_mmap_read(int fd, size_t length, long offset) {
    void *p = v4l2_mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (int64_t)offset);
    return p == MAP_FAILED ? NULL : p;
}

/// ioctl(2) with one pointer argument.
static inline int scand_ioctl(int fd, unsigned long request, void *arg) {
    return ioctl(fd, request, arg);
}
/// v4l2_ioctl from libv4l2 (format conversion fallback) with one pointer argument.
static inline int scand_v4l2_ioctl(int fd, unsigned long request, void *arg) {
    return v4l2_ioctl(fd, request, arg);
}
/// v4l2_open from libv4l2 without the variadic mode argument.
static inline int scand_v4l2_open(const char *path, int flags) {
    return v4l2_open(path, flags);
}
/// open(2) without the variadic mode argument.
static inline int scand_open(const char *path, int flags) {
    return open(path, flags);
}
#endif
