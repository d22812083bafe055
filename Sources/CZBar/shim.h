#ifndef SCAND_CZBAR_SHIM_H
#define SCAND_CZBAR_SHIM_H
#include <zbar.h>

/// zbar_fourcc is a function-like macro; Swift imports this constant instead.
static const unsigned long scand_zbar_fourcc_Y800 = zbar_fourcc('Y', '8', '0', '0');
#endif
