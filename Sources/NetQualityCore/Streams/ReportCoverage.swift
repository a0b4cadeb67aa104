/// What a receiver report covers beyond the previous one about the same stream: the packets
/// it counts and, of them, the ones it counts lost. RFC 3550 section 6.4.1 and appendix A.3
/// compute a report's fraction lost the same way, between the receiver's own consecutive
/// reports: expected = the advance of the extended highest sequence number received, lost =
/// the advance of the cumulative number lost. Computed between the reports seen here it also
/// spans a report that went missing, and it says how many packets a report speaks for: none
/// while the sender sends nothing (a call on hold), whatever its fraction lost says.
///
/// 32-bit counts (an advance of the 32-bit sequence read as signed fits them): 12 bytes
/// beside each stream's RTCP details instead of 24.
public struct ReportCoverage: Sendable, Equatable {
  /// Packets the receiver expected since the previous report (0 when the sequence did not
  /// advance).
  public var packets: Int32
  /// Of them, lost: never negative (duplicates lower the cumulative count, RFC 3550 section
  /// 6.4.1) and never more than `packets`.
  public var lost: Int32

  public init(packets: Int32, lost: Int32) {
    self.packets = packets
    self.lost = lost
  }

  /// Between two reports' (extended highest sequence number, cumulative lost). The sequence's
  /// advance is taken modulo 2^32 and read as signed: a receiver that restarted its count
  /// goes back, which covers nothing.
  init(
    from previous: (highestSequence: UInt32, cumulativeLost: Int32),
    to current: (highestSequence: UInt32, cumulativeLost: Int32)
  ) {
    packets = max(0, Int32(bitPattern: current.highestSequence &- previous.highestSequence))
    // Both counts are 24-bit (RFC 3550 section 6.4.1): their difference fits.
    let lostAdvance = Int64(current.cumulativeLost) - Int64(previous.cumulativeLost)
    lost = Int32(min(Int64(packets), max(0, lostAdvance)))
  }

  /// Lost over covered, 0 when nothing is covered.
  public var lossRatio: Double { packets > 0 ? Double(lost) / Double(packets) : 0 }
}
