/// The capture on each interface: running or not, its link, and what libpcap received and
/// dropped (`pcap_stats`): capture loss, apart from network loss.
public struct CaptureInterfacesCollector: MetricsCollector, Equatable {
  public static let families: [MetricFamily] = [
    .captureUp, .linkUp, .captureReceivedPacketsTotal, .captureDroppedPacketsTotal,
    .captureInterfaceDroppedPacketsTotal,
  ]

  /// One capture interface as the agent sees it.
  public struct Interface: Sendable, Equatable {
    public var name: String
    public var capturing: Bool
    public var linkUp: Bool?
    public var receivedPackets: UInt64
    public var droppedPackets: UInt64
    public var interfaceDroppedPackets: UInt64

    public init(
      name: String, capturing: Bool, linkUp: Bool?, receivedPackets: UInt64, droppedPackets: UInt64,
      interfaceDroppedPackets: UInt64
    ) {
      self.name = name
      self.capturing = capturing
      self.linkUp = linkUp
      self.receivedPackets = receivedPackets
      self.droppedPackets = droppedPackets
      self.interfaceDroppedPackets = interfaceDroppedPackets
    }
  }

  /// In name order.
  public var interfaces: [Interface]

  public init(interfaces: [Interface]) {
    self.interfaces = interfaces
  }

  public func collect(into out: inout MetricsWriter) {
    out.family(.captureUp)
    for interface in interfaces {
      out.sample(.captureUp, [("interface", interface.name)], interface.capturing ? 1 : 0)
    }
    out.family(.linkUp)
    for interface in interfaces {
      if let up = interface.linkUp {
        out.sample(.linkUp, [("interface", interface.name)], up ? 1 : 0)
      }
    }
    out.family(.captureReceivedPacketsTotal)
    for interface in interfaces {
      out.sample(
        .captureReceivedPacketsTotal, [("interface", interface.name)],
        Double(interface.receivedPackets))
    }
    out.family(.captureDroppedPacketsTotal)
    for interface in interfaces {
      out.sample(
        .captureDroppedPacketsTotal, [("interface", interface.name)],
        Double(interface.droppedPackets))
    }
    out.family(.captureInterfaceDroppedPacketsTotal)
    for interface in interfaces {
      out.sample(
        .captureInterfaceDroppedPacketsTotal, [("interface", interface.name)],
        Double(interface.interfaceDroppedPackets))
    }
  }
}

// MARK: The families

extension MetricFamily {
  public static let captureUp = gauge(
    "netquality_capture_up", labels: ["interface"],
    "Whether the capture on the interface is running.")
  public static let linkUp = gauge(
    "netquality_link_up", labels: ["interface"],
    "Whether the interface has its link (operstate and carrier).")
  public static let captureReceivedPacketsTotal = counter(
    "netquality_capture_received_packets_total", labels: ["interface"],
    "Packets the capture received (pcap_stats ps_recv).")
  public static let captureDroppedPacketsTotal = counter(
    "netquality_capture_dropped_packets_total", labels: ["interface"],
    "Packets the kernel dropped for want of buffer (pcap_stats ps_drop): capture loss, not "
      + "network loss.")
  public static let captureInterfaceDroppedPacketsTotal = counter(
    "netquality_capture_interface_dropped_packets_total", labels: ["interface"],
    "Packets the interface or driver dropped (pcap_stats ps_ifdrop).")
}

extension CaptureInterfacesCollector {
  /// Every family with a sample, for the catalogue's checks (`MetricsCollector.example`).
  public static var example: Self? {
    CaptureInterfacesCollector(interfaces: [
      .init(
        name: "eth0", capturing: true, linkUp: true, receivedPackets: 10, droppedPackets: 0,
        interfaceDroppedPackets: 0)
    ])
  }
}
