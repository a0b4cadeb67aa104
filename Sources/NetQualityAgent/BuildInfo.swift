/// What `netquality_build_info`, `--version`, the logs and the landing page say about this build.
public enum BuildInfo {
  public static let version = "0.2.0"
  /// The git commit built (the BuildRevision plugin), "unknown" when built outside a checkout.
  public static let revision = buildRevision
  /// The compiler's version, from `#if compiler` (the closest Swift offers to Go's
  /// `runtime.Version()`, which Prometheus' build_info reports as goversion): to the patch
  /// release for the toolchains in use, to the minor one otherwise.
  public static let swiftVersion: String = {
    #if compiler(>=6.4)
      return ">=6.4"
    #elseif compiler(>=6.3.2)
      return "6.3.2"
    #elseif compiler(>=6.3.1)
      return "6.3.1"
    #elseif compiler(>=6.3)
      return "6.3"
    #elseif compiler(>=6.2)
      return "6.2"
    #else
      return "6.1"
    #endif
  }()
}
