/// What `netquality_build_info` and the landing page say about this build.
public enum BuildInfo {
  public static let version = "0.2.0"
}
