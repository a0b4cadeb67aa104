/// What made a direction's level what it is: the E-model's rating (loss and delay) or the
/// jitter bands, whichever was worse, or the peer being down. The raw values are what the JSON
/// API shows as `limited_by`.
public enum LimitingFactor: String, Sendable, Equatable {
  /// The E-model's rating (ITU-T G.107), from loss and delay.
  case lossDelay = "loss_delay"
  /// The jitter bands.
  case jitter
  /// Disconnected: nothing to score.
  case disconnected
}
