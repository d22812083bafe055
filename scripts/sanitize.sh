#!/usr/bin/env bash
# The test suite under ThreadSanitizer and AddressSanitizer, each in its own build folder.
#   scripts/sanitize.sh          ThreadSanitizer
#   scripts/sanitize.sh --asan   AddressSanitizer
#   scripts/sanitize.sh --all    both, with every suite
#   scripts/sanitize.sh --rules  only the lock rules below (seconds; the test command runs these)
# Neither sanitizer is part of the test command: each builds the whole package and its tests
# again (7-8 minutes on 2 cores) and runs them serially; ThreadSanitizer alone took 17 minutes
# in stop 52's rehearsal, when the command had reached 52 minutes in CI, over its 45. They are
# long runs, run before a stop lands (figures in its note) and weekly by
# .github/workflows/sanitizers.yml (--all). Memory errors in the parsers of outside input stay
# in the test command: the fuzz targets run under AddressSanitizer there (scripts/fuzz.sh).
# ASan: serial, leak reports off (at exit they list Foundation.Process's and XCTest's own
# allocations) and no quarantine (the suite's RSS bounds would otherwise count freed memory).
# TSan: the whole suite, serial (in parallel on two cores, TSan's slowdown starves the camera
# driver tests' reader threads past their stall timeout). die_after_fork=0: the suites that
# start processes (CLITests, TOMLDifferentialTests) fork from a multithreaded test runner, which
# TSan otherwise refuses; the child only execs.
set -euo pipefail
cd "$(dirname "$0")/.."
# ThreadSanitizer does not see Synchronization.Mutex's contended paths on Linux (they run in the
# uninstrumented standard library) and reports the state it guards as racing: shared state goes
# behind ScanHardware's Locked (a pthread mutex) instead.
if grep -rnE '\bMutex(<|\()' Sources Tests; then
    echo "sanitize.sh: use Locked (ScanHardware/Threads.swift), not Mutex: ThreadSanitizer cannot see Mutex's lock on Linux" >&2
    exit 1
fi
if grep -rnF 'Locked(())' Sources Tests | grep -v '///'; then
    echo "sanitize.sh: use ThreadLock for a lock that guards no value: ThreadSanitizer reports Locked(())'s empty state as racing" >&2
    exit 1
fi
# The attack suites (scripts/attack-suites.sh) bound a daemon's CPU, memory and latency, which a
# sanitizer multiplies: the test command leaves them out here; `scripts/sanitize.sh --all` runs
# them too (about 20 minutes more).
# ThreadSanitizer also leaves out the decoding and parsing suites that run on one thread and
# take longest under it (about 470 of its 810 s): --asan still runs them, and the
# decoder's threads stay covered (ParallelPassesTests, the two-thread test of HardScenePassTests,
# the CLI's decode --workers). --all runs them too.
single="TOMLDifferentialTests|FrameConditionTests|MisreadGuardTests|PDF417ConfirmationTests|ResampledPassTests|GuidanceTests|PassCensusTests|HighlightsPassTests|PlaneDeconvolutionTests"
single+="|GeneratedSetTests|GS1Tests|GS1OracleTests"
single+="|HardScenePassTests/(aBlurredDataMatrixIsReadOnceDeconvolved|aDarkNoisyFrameIsReadAtHalfSize|theDeconvolvedFramesAreMadeOnceAndReadByZXing)"
# AddressSanitizer leaves out three of them whose code is covered elsewhere under it: the
# differential suites of the TOML and GS1 parsers (a Python oracle per case; both parsers have a
# fuzz target under AddressSanitizer, scripts/fuzz.sh) and GeneratedSetTests (forty generated
# scenes through the whole pipeline, each pass's filters run by its own suite here).
again="TOMLDifferentialTests|GS1OracleTests|GeneratedSetTests"
# Both also leave out the longest runs of code that shorter tests cover under them (measured in
# the rehearsal of 2026-11-27: the test command had grown to 55 minutes, 16 of them here):
# whole frames through every deep pass (the passes' filters have suites of their own, and the
# blurred QR code and the crossed EAN runs of HardScenePassTests and MisreadGuardTests stay),
# a daemon's memory bound over host SETs (a sanitizer's allocator is not the daemon's), and the
# decode CLI's add-on and zbarimg-habit runs and the bench's errata run, each a string of
# instrumented `scand` processes (AddOnReaderTests reads the add-ons in-process, and the CLI's
# other tests start the same command).
# ASan: about 205 of its 490 s; TSan: about 75 of its 460 s.
long="HostileInputTests/memoryStaysFlatOverAThousandSets|DecodeCommandTests/setReadsAddOnsAsTheKioskWould|ContinuousDaemonTests"
asan_long="$long|FrameConditionTests/aSharpSceneMeasuresUnderAPixelAndABlurredOneItsBlur|PDF417ConfirmationTests/aMiscorrectedPDF417IsNotTaken|PassCensusTests"
asan_long+="|HardScenePassTests/(aBlurredDataMatrixIsReadOnceDeconvolved|aDarkNoisyFrameIsReadAtHalfSize|theDeconvolvedFramesAreMadeOnceAndReadByZXing)"
tsan_long="$long|DecodeCommandTests/zbarimgHabitsAndTheKiosksConfig|BenchDecodeTests/anErrataFileCorrectsTheExpectedTextEveryDecoderIsJudgedBy"
# And the longest one-image reads whose threads other tests cover (measured in stop 49's
# rehearsal, about 120 of its 520 s of tests; the test command had reached 46 minutes): the
# add-on searches of a turned and a crowded frame, the CLI's one-engine run (six instrumented
# processes), and four frames of the deep passes and the pipeline on one thread. The decoder's
# two threads stay covered by ParallelPassesTests and BarRunTests.
tsan_long+="|AddOnReaderTests/(aTurnedCodesAddOnIsLookedForInTheWholeRegion|anAddOnAnotherCodeCarriesIsNotFittedToThePlainOne)"
tsan_long+="|DecodeCommandTests/oneEngineAloneAnswersByTheKiosksRules|PipelineTests/imagesWithoutACodeGiveNothing|PassTests/aSliverOfAnImageIsNotMadeIntoMegapixels"
tsan_long+="|HardScenePassTests/(aCodeHalfInShadowIsReadOnlyOnceTheLightIsEven|aCodeUnderGlareIsReadOnceItsLocalRangeIsStretched)"
skip=(--skip "$(scripts/attack-suites.sh)|$again|$asan_long"); tsan_skip=(--skip "$(scripts/attack-suites.sh)|$single|$tsan_long")
mode=${1:-}
case "$mode" in
  --rules) echo "sanitize.sh: the lock rules hold"; exit 0 ;;
  ""|--asan) ;;
  --all) skip=(); tsan_skip=() ;;
  *) echo "usage: scripts/sanitize.sh [--asan|--all|--rules]" >&2; exit 64 ;;
esac
# Bounds (scripts/bounded.sh) of about three times a run's length with its build.
t=$SECONDS
if [ "$mode" != "" ]; then
  ASAN_OPTIONS=detect_leaks=0:quarantine_size_mb=0 scripts/bounded.sh 30 swift test --scratch-path .build-asan --sanitize=address --no-parallel "${skip[@]}"
  echo "sanitize.sh: AddressSanitizer, build and tests: $((SECONDS - t)) s"; t=$SECONDS
fi
if [ "$mode" != "--asan" ]; then
  TSAN_OPTIONS=die_after_fork=0 scripts/bounded.sh 30 swift test --scratch-path .build-tsan --sanitize=thread --no-parallel "${tsan_skip[@]}"
  echo "sanitize.sh: ThreadSanitizer, build and tests: $((SECONDS - t)) s"
fi
