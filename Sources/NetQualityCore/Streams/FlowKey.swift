/// A directed address/port pair: the flow a stream travels on (its streams are found by it in
/// `StreamAnalyzer.streamsByFlow`). Two addresses and the ports packed in one word.
struct FlowKey: Hashable {
  let sourceAddress: IPAddress
  let destinationAddress: IPAddress
  /// Source port in the high 16 bits, destination port in the low 16.
  let ports: UInt32

  init(sourceAddress: IPAddress, destinationAddress: IPAddress, ports: UInt32) {
    self.sourceAddress = sourceAddress
    self.destinationAddress = destinationAddress
    self.ports = ports
  }

  /// The flow `key` travels on.
  init(_ key: StreamKey) {
    self.init(
      sourceAddress: key.sourceAddress, destinationAddress: key.destinationAddress,
      ports: UInt32(truncatingIfNeeded: key.portsAndSSRC >> 32))
  }

  /// The same pair the other way.
  var reversed: FlowKey {
    FlowKey(
      sourceAddress: destinationAddress, destinationAddress: sourceAddress,
      ports: ports << 16 | ports >> 16)
  }

  /// The flow's tag in a `StreamIndexTable`: the words multiplied in with the per-process
  /// seeds, as `StreamKey.tableHash` does (a cheap hash that fields moving together cannot
  /// cancel).
  var tableTag: UInt32 {
    let seeds = StreamKey.hashSeeds
    let low = StreamKey.fold(sourceAddress.low ^ seeds.0, destinationAddress.low ^ seeds.1)
    let high = StreamKey.fold(sourceAddress.high ^ seeds.2, destinationAddress.high ^ seeds.3)
    return UInt32(
      truncatingIfNeeded: StreamKey.fold(low ^ seeds.4, high ^ UInt64(ports) ^ seeds.5))
  }
}
