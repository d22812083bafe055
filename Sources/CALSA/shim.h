// ALSA (Debian 12: libasound2-dev): announcements are played on a PCM device ("default").
#include <alsa/asoundlib.h>
