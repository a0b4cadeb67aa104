import CPcap
import NetQualityCore

/// A record's time as libpcap hands it over (`pcap_pkthdr.ts`), read as what its source meant:
/// the one place every capture callback (files and interfaces) turns a header into a time.
struct RecordTime {
  /// Whether `tv_sec` came from a classic pcap record header. That field is unsigned 32-bit
  /// seconds (https://www.ietf.org/archive/id/draft-ietf-opsawg-pcap-04.html section 5: valid
  /// to 2106), but libpcap reads it through `struct pcap_timeval`'s `bpf_int32 tv_sec`
  /// (pcap-int.h, the `ts` of sf-pcap.c's `struct pcap_sf_pkthdr`) and copies that into the
  /// 64-bit `time_t`: from 2038-01-19T03:14:08Z on it arrives negative. Its low 32 bits are
  /// the file's own. pcapng is not read this way: sf-pcapng.c assembles a 64-bit timestamp,
  /// divides it by the interface's resolution and stores an unsigned 64-bit second count in
  /// `time_t`, so a date after 2038 arrives as it is, and a negative one is either before 1970
  /// (a negative `if_tsoffset`) or past 2^63 s, both beyond what `CaptureTime` holds (clamped).
  let secondsAreUnsigned32: Bool
  /// Units of `tv_usec` per second: 10^9 with `PCAP_TSTAMP_PRECISION_NANO`, else 10^6.
  let fractionUnitsPerSecond: Int64

  /// A pcap or pcapng file opened with `PCAP_TSTAMP_PRECISION_NANO`. `pcap_major_version` is
  /// the file's: 2 (or 543, DG/UX tcpdump) for pcap, 1 for pcapng (sf-pcapng.c copies the
  /// section header's major version, `PCAP_NG_VERSION_MAJOR`).
  static func savefile(majorVersion: Int32) -> RecordTime {
    RecordTime(secondsAreUnsigned32: majorVersion != 1, fractionUnitsPerSecond: 1_000_000_000)
  }

  /// A live capture: the kernel's `time_t` seconds, nano- or microseconds.
  static func live(nanoseconds: Bool) -> RecordTime {
    RecordTime(
      secondsAreUnsigned32: false, fractionUnitsPerSecond: nanoseconds ? 1_000_000_000 : 1_000_000)
  }

  /// The record's time, and whether its sub-second field was out of range. libpcap checks
  /// neither form: with `PCAP_TSTAMP_PRECISION_NANO` it passes a nanosecond file's field
  /// through and multiplies a microsecond file's by 1000 (sf-pcap.c `pcap_next_packet`,
  /// `SCALE_UP`), so a microsecond field of 10^6 or more arrives as 10^9 or more, and one of
  /// 2^31 or more (read as `bpf_int32`) as a negative number. Such a field is no time: what is
  /// returned then carries it into the seconds (floor division), only for a record that has no
  /// neighbour to take its time from; the callers give it the latest record's time instead (it
  /// arrived in this order: `StreamAnalyzer.timeOfRecordWithBadTimestamp`) and count it. Issue
  /// 39: left out, such records were packets lost — a perfect stream with a tenth of them
  /// showed 10 % loss; fed with a time made up from the field, jitter.
  @inline(__always)
  func captureTime(_ stamp: timeval) -> (time: CaptureTime, normalised: Bool) {
    var fraction = Int64(stamp.tv_usec)
    var seconds =
      secondsAreUnsigned32 ? Int64(UInt32(truncatingIfNeeded: stamp.tv_sec)) : Int64(stamp.tv_sec)
    let normalised = fraction < 0 || fraction >= fractionUnitsPerSecond
    if normalised {
      var carried = fraction / fractionUnitsPerSecond
      fraction %= fractionUnitsPerSecond
      if fraction < 0 {
        fraction += fractionUnitsPerSecond
        carried -= 1
      }
      seconds = seconds.addingReportingOverflow(carried).overflow ? seconds : seconds + carried
    }
    let nanoseconds =
      fractionUnitsPerSecond == 1_000_000_000
      ? fraction : fraction * (1_000_000_000 / fractionUnitsPerSecond)
    return (CaptureTime(seconds: seconds, nanoseconds: nanoseconds), normalised)
  }
}
