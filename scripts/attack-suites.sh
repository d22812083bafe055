#!/bin/sh
# The suites that attack or fault a whole running daemon and bound its CPU, memory or latency:
# scripts/test.sh runs them one at a time after the rest; scripts/sanitize.sh leaves them to
# `scripts/sanitize.sh --all` (a sanitizer's slowdown is not the daemon's).
echo 'WebDoorTests|MQTTFloodTests|SnapshotLoadTests|FullDiskTests|WatchdogTests|AnnouncementKillTests|ServiceGroupTests'
