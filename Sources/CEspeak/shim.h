// espeak-ng 1.51 (Debian 12: libespeak-ng-dev): the classic speak_lib API, used in
// AUDIO_OUTPUT_SYNCHRONOUS mode (samples come back through the synth callback).
#include <espeak-ng/speak_lib.h>
