import CPcap

/// Checks a capture filter the way a capture will compile it, without opening an interface:
/// `check-config` runs anywhere, as any user.
public enum CaptureFilter {
  /// nil when libpcap compiles `filter` for Ethernet at `snapLength`; otherwise its reason.
  public static func problem(_ filter: String, snapLength: Int) -> String? {
    guard let handle = pcap_open_dead(DLT_EN10MB, Int32(clamping: snapLength)) else {
      return "libpcap could not make a handle to compile with"
    }
    defer { pcap_close(handle) }
    var program = bpf_program()
    guard pcap_compile(handle, &program, filter, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
      return String(cString: pcap_geterr(handle))
    }
    pcap_freecode(&program)
    return nil
  }
}
