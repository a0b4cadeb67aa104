extension Dictionary {
  /// Removes the entries whose value `isStale` picks, in place. `filter` built a new dictionary
  /// at every tick, hashing each of the 100,000 kept addresses again to drop the 2,000 that
  /// left (perf of the churn bench, issue 37). Once the dictionary holds under a quarter of
  /// its room (and more than 1,024 entries' room), it is rebuilt at its size, so the memory of
  /// a wave of peers comes back when they are gone.
  mutating func removeValues(where isStale: (Value) -> Bool) {
    var stale: [Key] = []
    for (key, value) in self where isStale(value) { stale.append(key) }
    guard !stale.isEmpty else { return }
    for key in stale { removeValue(forKey: key) }
    if capacity > 1024, count < capacity / 4 {
      var rebuilt = Self(minimumCapacity: count)
      for (key, value) in self { rebuilt[key] = value }
      self = rebuilt
    }
  }
}
