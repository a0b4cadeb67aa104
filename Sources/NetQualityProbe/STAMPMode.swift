/// The two modes of a STAMP test session (RFC 8762 section 4): the mode fixes the packet layout,
/// and authenticated mode adds an HMAC over the packet (section 4.4).
public enum STAMPMode: Sendable, Hashable {
  case unauthenticated
  case authenticated
}
