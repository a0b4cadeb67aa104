/// The agent process itself: the `process_*` families exactly as Prometheus' Go client's process
/// collector writes them on Linux (client_golang prometheus/process_collector.go and
/// process_collector_procfsenabled.go: the same names, types and help), so the restart, CPU,
/// memory and file-descriptor alerts written for node_exporter or Prometheus itself apply as
/// they are. The figures are read from /proc by the agent at each scrape; one that could not be
/// read is left out, as client_golang leaves it out.
public struct ProcessCollector: MetricsCollector, Equatable {
  public static let families: [MetricFamily] = [
    .processCPUSeconds, .processOpenFDs, .processMaxFDs, .processVirtualMemoryBytes,
    .processVirtualMemoryMaxBytes, .processResidentMemoryBytes, .processStartTimeSeconds,
  ]

  /// User and system CPU time (utime + stime of /proc/self/stat over USER_HZ).
  public var cpuSeconds: Double?
  public var openFileDescriptors: Int?
  /// The soft RLIMIT_NOFILE.
  public var maxFileDescriptors: Double?
  public var virtualMemoryBytes: Double?
  /// The soft RLIMIT_AS; unlimited is 2^64 - 1, as client_golang writes it (1.8446744073709552e+19).
  public var virtualMemoryMaxBytes: Double?
  public var residentMemoryBytes: Double?
  /// Seconds since the Unix epoch (boot time plus the process' start time after boot).
  public var startTimeSeconds: Double?

  public init(
    cpuSeconds: Double? = nil, openFileDescriptors: Int? = nil, maxFileDescriptors: Double? = nil,
    virtualMemoryBytes: Double? = nil, virtualMemoryMaxBytes: Double? = nil,
    residentMemoryBytes: Double? = nil, startTimeSeconds: Double? = nil
  ) {
    self.cpuSeconds = cpuSeconds
    self.openFileDescriptors = openFileDescriptors
    self.maxFileDescriptors = maxFileDescriptors
    self.virtualMemoryBytes = virtualMemoryBytes
    self.virtualMemoryMaxBytes = virtualMemoryMaxBytes
    self.residentMemoryBytes = residentMemoryBytes
    self.startTimeSeconds = startTimeSeconds
  }

  public func collect(into out: inout MetricsWriter) {
    let values: [(MetricFamily, Double?)] = [
      (.processCPUSeconds, cpuSeconds), (.processOpenFDs, openFileDescriptors.map(Double.init)),
      (.processMaxFDs, maxFileDescriptors), (.processVirtualMemoryBytes, virtualMemoryBytes),
      (.processVirtualMemoryMaxBytes, virtualMemoryMaxBytes),
      (.processResidentMemoryBytes, residentMemoryBytes),
      (.processStartTimeSeconds, startTimeSeconds),
    ]
    for case (let family, let value?) in values {
      out.family(family)
      out.sample(family, [], value)
    }
  }
}

// MARK: The families (client_golang's names and help, word for word)

extension MetricFamily {
  public static let processCPUSeconds = counter(
    "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.")
  public static let processOpenFDs = gauge(
    "process_open_fds", "Number of open file descriptors.")
  public static let processMaxFDs = gauge(
    "process_max_fds", "Maximum number of open file descriptors.")
  public static let processVirtualMemoryBytes = gauge(
    "process_virtual_memory_bytes", "Virtual memory size in bytes.")
  public static let processVirtualMemoryMaxBytes = gauge(
    "process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.")
  public static let processResidentMemoryBytes = gauge(
    "process_resident_memory_bytes", "Resident memory size in bytes.")
  public static let processStartTimeSeconds = gauge(
    "process_start_time_seconds", "Start time of the process since unix epoch in seconds.")
}

extension ProcessCollector {
  /// Every family with a sample, for the catalogue's checks (`MetricsCollector.example`).
  public static var example: Self? {
    ProcessCollector(
      cpuSeconds: 1.5, openFileDescriptors: 12, maxFileDescriptors: 1024,
      virtualMemoryBytes: 1_073_741_824, virtualMemoryMaxBytes: Double(UInt64.max),
      residentMemoryBytes: 33_554_432, startTimeSeconds: 1_767_225_600)
  }
}
