// libmosquitto 2.0 (Debian 12: libmosquitto-dev): the MQTT client, with its own network thread
// (mosquitto_loop_start).
#include <mosquitto.h>
