#ifndef SCAND_CGPIOD_SHIM_H
#define SCAND_CGPIOD_SHIM_H
/* libgpiod 1.6 (the v1 API shipped by Debian 12 and Raspberry Pi OS 12). */
#include <gpiod.h>
#endif
