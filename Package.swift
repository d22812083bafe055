// swift-tools-version:6.0
// scand — a barcode and QR scanner daemon for kiosk boards.
import PackageDescription

let package = Package(
    name: "scand",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "scand", targets: ["scand"]),
        // Simulated hardware (the demo's board, the tests' drivers) and the kiosk in virtual time.
        .library(name: "SimulatedHardware", targets: ["SimulatedHardware"]),
        .library(name: "KioskTestKit", targets: ["KioskTestKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The setup page and the control socket (HTTP): SwiftNIO's event loop and llhttp parser
        // (NIOCore, NIOPosix, NIOHTTP1: no Foundation).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // System libraries: module maps plus small headers for what Swift cannot import.
        .systemLibrary(name: "CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
        .systemLibrary(name: "CV4L2", pkgConfig: "libv4l2", providers: [.apt(["libv4l-dev"])]),
        // Announcements: espeak-ng synthesises, ALSA plays.
        .systemLibrary(name: "CEspeak", providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // Results, status and commands through an MQTT broker.
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // libpng/libjpeg-turbo report errors through longjmp, which Swift cannot catch: a small C
        // target turns them into return codes.
        // `scand run` notes SIGTERM, SIGINT and SIGHUP from its first instruction (a constructor).
        .target(name: "CStartup"),
        .target(
            name: "CImageCodecs",
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("jpeg")]
        ),

        // zxing-cpp 3.1 (C++20, built into /usr/local by scripts/setup-zxing.sh, linked statically)
        // behind a small extern "C" API. The archive by name, so Debian's 1.4 (libzxing-dev), if
        // installed, is never taken instead.
        .target(
            name: "CZXing",
            cxxSettings: [.unsafeFlags(["-std=c++20", "-I/usr/local/include"])],
            linkerSettings: [.unsafeFlags(["-L/usr/local/lib", "-Xlinker", "-l:libZXing.a"])]
        ),

        // libcamera (C++ only while it is at 0.x; Debian 12 has 0.0.3, Raspberry Pi OS a newer one)
        // behind a small C API: list, acquire, one stream, requests, controls. Its headers live
        // in /usr/include/libcamera (pkg-config libcamera); libcamera-base holds its signals.
        .target(
            name: "CLibcamera",
            cxxSettings: [.unsafeFlags(["-I/usr/include/libcamera"])],
            linkerSettings: [.linkedLibrary("camera"), .linkedLibrary("camera-base")]
        ),

        // The one POSIX layer every module stands on: Locked, threads, descriptors, whole-file
        // reads and writes, errno names, Unix socket addresses, wake pipes.
        .target(name: "POSIX"),
        // Pure layers.
        .target(name: "ScanHardware", dependencies: ["POSIX"]),
        .target(name: "ScanCore", dependencies: ["ScanHardware"]),

        .target(name: "ImageLoading", dependencies: ["ScanHardware", "CImageCodecs"]),
        .target(name: "Decoding", dependencies: ["ScanCore", "ScanHardware", "CZBar", "CZXing"]),
        // Where results go: formats, the HID keyboard's tables, the outbox, the outputs, the
        // acknowledgement window.
        .target(name: "Delivery", dependencies: ["ScanCore", "ScanHardware", .product(name: "Logging", package: "swift-log")]),
        .target(name: "ScanConfig", dependencies: ["ScanCore", "ScanHardware", "Delivery"]),
        // What the camera sees, for a person: snapshots with overlays, measures, guidance.
        .target(name: "Viewfinder", dependencies: ["ScanCore", "ScanHardware", "Decoding", "ImageLoading"]),
        .target(name: "SimulatedHardware", dependencies: ["ScanCore", "ScanHardware", "ImageLoading"]),
        .target(name: "KioskTestKit", dependencies: ["ScanCore", "ScanHardware", "SimulatedHardware", "ScanRuntime", "ScanConfig", "ScanApp",
                                                    .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "LinuxHardware",
            dependencies: ["ScanCore", "ScanHardware", "CGPIOD", "CV4L2", "CLibcamera", "CImageCodecs", "CEspeak", "CALSA"]
        ),
        .target(
            name: "ScanRuntime",
            dependencies: [
                "ScanCore", "ScanHardware", "Decoding", "ScanConfig", "Viewfinder", "Delivery",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "SetupPage",
            dependencies: [
                "ScanCore", "ScanHardware", "ScanConfig", "Viewfinder", "ImageLoading",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "MQTTLink",
            dependencies: ["ScanCore", "ScanHardware", "Delivery", "CMosquitto", .product(name: "Logging", package: "swift-log")]
        ),
        // The one composition root: config -> board (drivers) -> kiosk runtime -> services, as
        // `scand run` runs it and as the tests build it.
        .target(
            name: "ScanApp",
            dependencies: [
                "ScanCore", "ScanHardware", "Decoding", "ScanConfig", "SimulatedHardware", "LinuxHardware",
                "Delivery", "ScanRuntime", "MQTTLink", "SetupPage", "Viewfinder",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "scand",
            dependencies: [
                "ScanCore", "ScanHardware", "Decoding", "ImageLoading", "ScanConfig", "ScanApp", "Delivery", "KioskTestKit", "CStartup",
                "SimulatedHardware", "LinuxHardware", "ScanRuntime", "MQTTLink", "SetupPage", "Viewfinder",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),

        // Tests that compute for seconds run on threads of their own, off Swift's cooperative pool.
        .target(name: "TestThreads", dependencies: ["POSIX"], path: "Tests/TestThreads"),
        .testTarget(name: "ScanCoreTests", dependencies: ["ScanCore", "ScanHardware", "Delivery"]),
        .testTarget(name: "ScanConfigTests", dependencies: ["ScanConfig", "ScanCore", "TestThreads"]),
        .testTarget(name: "DecodingTests", dependencies: ["Decoding", "ImageLoading", "POSIX", "ScanCore", "ScanHardware", "TestThreads"]),
        .testTarget(name: "WebTests", dependencies: ["SetupPage", "ScanConfig", "ScanCore", "ScanHardware", "KioskTestKit", "POSIX",
                                                  .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "ViewfinderTests", dependencies: ["Viewfinder", "Decoding", "ImageLoading", "ScanCore", "ScanHardware", "TestThreads"]),
        .testTarget(name: "ImageLoadingTests", dependencies: ["ImageLoading", "ScanHardware"]),
        .testTarget(
            name: "ScanRuntimeTests",
            dependencies: ["ScanRuntime", "SimulatedHardware", "KioskTestKit", "LinuxHardware", "ScanConfig", "ScanCore", "ScanHardware",
                           "Decoding", "ImageLoading", "Delivery", "TestThreads",
                           .product(name: "InMemoryLogging", package: "swift-log")]
        ),
        .testTarget(name: "LinuxHardwareTests", dependencies: ["LinuxHardware", "ScanCore", "ScanHardware", "SimulatedHardware", "CV4L2", "CLibcamera"]),
        .testTarget(
            name: "KioskAppTests",
            dependencies: ["ScanApp", "KioskTestKit", "ScanConfig", "ScanCore", "ScanHardware", "ScanRuntime", "SimulatedHardware", "SetupPage",
                           "ImageLoading", "TestThreads", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                           .product(name: "InMemoryLogging", package: "swift-log")]
        ),
        .testTarget(name: "CLITests", dependencies: ["scand", "SimulatedHardware", "ImageLoading", "Viewfinder", "TestThreads"]),
    ],
    cxxLanguageStandard: .cxx17
)
