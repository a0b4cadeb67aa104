/// The `dashboard:` section: how much of the fleet a frame of the text dashboard shows, and
/// when `dashboard_file` is rotated. Applied by a reload.
public struct DashboardSettings: Sendable, Equatable {
  /// Peer rows (and event lines) per frame; the rest is counted in one line each. 50 is a
  /// screenful: about 7 KB a frame at any fleet size, where every peer's row made 1.27 MB a
  /// frame at 10,000 peers.
  public var maxPeers = 50
  /// The file is rotated when the next frame would take it past this size (0: never): 10 MiB
  /// is about 1,500 frames of 7 KB, 50 minutes at one frame every 2 s (3 hours and 20 minutes
  /// with the 3 rotated files kept).
  public var maxSizeMegabytes = 10
  /// Rotated files kept (`file.1` the newest ... `file.<keep>` the oldest); 0 keeps none.
  public var keep = 3

  public init() {}

  public static let maxPeersRange = 1...100_000
  public static let maxSizeRangeMegabytes = 0...1_048_576
  public static let keepRange = 0...100

  /// The rotation limit in bytes; 0: never rotate.
  public var maxSizeBytes: Int64 { Int64(maxSizeMegabytes) * 1_048_576 }
}
