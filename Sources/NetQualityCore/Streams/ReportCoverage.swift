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

  /// RFC 3550 appendix A.1's MAX_DROPOUT: the largest forward jump of the sequence a receiver
  /// takes as packets lost rather than a restart. A report's highest sequence cannot run ahead
  /// of the packets the sender sent by more than that.
  static let maxDropout = Int64(SequenceTracker.maxDropout)

  /// Between two reports' (extended highest sequence number, cumulative lost), given the
  /// packets the capture saw the stream send between their arrivals; nil when the pair cannot
  /// be read as one interval:
  ///
  /// * the sequence went back (its advance modulo 2^32 read as signed is negative): the
  ///   receiver restarted its count, or the reports are not one receiver's series;
  /// * the sequence ran further ahead than the sender sent packets, by more than MAX_DROPOUT:
  ///   the report block is not about what was sent (heplify_rtp_rtcp_sip_ipv4_udp.pcap: a
  ///   peer's SR blocks carry 131,074 and 262,148 between RR blocks near 11,332, and read as
  ///   intervals they counted 250,000 packets in 5 s of a 50 packet/s stream).
  ///
  /// The report's own fraction lost still speaks for it (`ReceptionFeedback`).
  init?(
    from previous: (highestSequence: UInt32, cumulativeLost: Int32),
    to current: (highestSequence: UInt32, cumulativeLost: Int32),
    packetsSent: Int64
  ) {
    let advance = Int64(Int32(bitPattern: current.highestSequence &- previous.highestSequence))
    guard advance >= 0, advance <= max(0, packetsSent) + Self.maxDropout else { return nil }
    packets = Int32(advance)
    // Both counts are 24-bit (RFC 3550 section 6.4.1): their difference fits.
    let lostAdvance = Int64(current.cumulativeLost) - Int64(previous.cumulativeLost)
    lost = Int32(min(advance, max(0, lostAdvance)))
  }

  /// Lost over covered, 0 when nothing is covered.
  public var lossRatio: Double { packets > 0 ? Double(lost) / Double(packets) : 0 }
}
