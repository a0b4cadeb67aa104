// swift-tools-version: 6.1
// The libFuzzer harness lives in its own package: its executable has no `main` (libFuzzer
// provides it), so it only links when built with --sanitize=fuzzer. scripts/fuzz.sh builds it.
import PackageDescription

let package = Package(
  name: "netquality-fuzz",
  dependencies: [.package(name: "netquality", path: "..")],
  targets: [
    .executableTarget(
      name: "NetQualityFuzz",
      dependencies: [.product(name: "NetQualityCore", package: "netquality")]
    )
  ]
)
