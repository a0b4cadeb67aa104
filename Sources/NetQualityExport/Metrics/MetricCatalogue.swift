/// Every metric family the agent can expose, each written once: name, type, labels, help.
/// Names follow Prometheus naming (https://prometheus.io/docs/practices/naming/): the
/// `netquality_` prefix, base units, counters ending in `_total`.
///
/// The families of the collectors (`Metrics/*Collector.swift`) are declared beside them; these
/// are the rest. Adding a metric: its `static let`, its name in `MetricCatalogue.families`, a
/// row in docs/metrics.md (`MetricCatalogueTests` checks all three against a full exposition).
extension MetricFamily {
  // MARK: The agent

  public static let buildInfo = gauge(
    "netquality_build_info", labels: ["version"], "Build of the agent; always 1.")
  public static let configLastReloadSuccessful = gauge(
    "netquality_config_last_reload_successful",
    "Whether the last configuration load (start or SIGHUP) succeeded.")
  public static let configLastReloadSuccessTimestampSeconds = gauge(
    "netquality_config_last_reload_success_timestamp_seconds",
    "When the configuration was last loaded successfully, Unix time.")
  public static let scrapeDurationSeconds = gauge(
    "netquality_scrape_duration_seconds", "Time the previous scrape took to render.")
  public static let httpConnections = gauge(
    "netquality_http_connections", "HTTP connections open now.")
  public static let httpConnectionsClosedTotal = counter(
    "netquality_http_connections_closed_total", labels: ["reason"],
    "HTTP connections the server closed, by reason: evicted (the longest waiting, to make "
      + "room at the cap), refused (every slot busy), timeout (no request in time), pipelining "
      + "(more requests sent ahead than the server answers at once), not_reading (answers "
      + "unread for the request timeout).")

  // MARK: Capture interfaces

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

  // MARK: The engine

  public static let streams = gauge(
    "netquality_streams", "RTP streams tracked (validated and candidates).")
  public static let streamSlots = gauge(
    "netquality_stream_slots",
    "Slots of the stream table: live streams plus free slots awaiting reuse.")
  public static let tickDurationSeconds = gauge(
    "netquality_tick_duration_seconds", labels: ["phase"],
    "How long the last tick took, by phase: harvest (captures held up), score, publish.")
  public static let ticksSkippedTotal = counter(
    "netquality_ticks_skipped_total",
    "Tick boundaries passed without a tick because the ticker woke a whole interval late or "
      + "more (a stopped or starved process); the next tick closes the latest boundary.")
  public static let tickLatenessSeconds = gauge(
    "netquality_tick_lateness_seconds",
    "How long after its boundary the last tick started (normally a millisecond or two).")
  public static let packetsTotal = counter(
    "netquality_packets_total", "Frames handed to the engine.")
  public static let rtcpPacketsTotal = counter(
    "netquality_rtcp_packets_total", "RTCP compound packets seen.")
  public static let decodeErrorsTotal = counter(
    "netquality_decode_errors_total", labels: ["reason"],
    "Malformed frames and packets, by reason.")
  public static let truncatedPacketsTotal = counter(
    "netquality_truncated_packets_total", "Frames cut by the snap length.")
  public static let captureClockStepsTotal = counter(
    "netquality_capture_clock_steps_total",
    "Times the packet timestamps stepped back more than 1 s and the analysis followed.")
  public static let captureOutOfOrderTimestampsTotal = counter(
    "netquality_capture_out_of_order_timestamps_total",
    "Single packets stamped more than 1 s behind their neighbours, placed in arrival order.")
  public static let captureBadTimestampRecordsTotal = counter(
    "netquality_capture_bad_timestamp_records_total",
    "Capture records whose timestamp is not a time (sub-second field out of range), not analysed.")
}

/// The catalogue as a list, in the order of docs/metrics.md.
public enum MetricCatalogue {
  public static let families: [MetricFamily] = [
    .buildInfo, .configLastReloadSuccessful, .configLastReloadSuccessTimestampSeconds,
    .scrapeDurationSeconds, .httpConnections, .httpConnectionsClosedTotal,
    .httpSecurityInfo, .httpAuthFailuresTotal, .httpAuthBcryptChecksTotal,
    .httpAuthBcryptShedTotal,
    .httpRateLimitedTotal, .httpTLSHandshakeFailuresTotal,
    .alertmanagerNotificationsSentTotal, .alertmanagerNotificationsFailedTotal,
    .alertmanagerNotificationsDroppedTotal, .alertmanagerQueueLength, .alertmanagerQueueCapacity,
    .alertmanagerActiveAlerts, .alertmanagerUp, .alertmanagerRequestDurationSeconds,
    .lastTickTimestampSeconds, .hostQualityLevel, .firingAlerts, .alertsFiring,
    .peerQualityLevel, .peerQualitySecondsTotal, .peerQualityLevelMax, .peerMOS, .peerLossRatio,
    .peerJitterSeconds, .peerRTTSeconds,
    .peerConnectionState, .peerReceivedPacketsTotal, .peerLostPacketsTotal,
    .peerSentPacketsTotal, .peerRetransmittedPacketsTotal, .peerFECPacketsTotal,
    .peers, .peersQualitySecondsTotal, .peersStateTransitionsTotal, .alertsFiredTotal,
    .peersInState, .peerSeriesOmitted, .peersMOS, .peersLossRatio, .peersJitterSeconds,
    .peersRTTSeconds,
    .streamLossRatio, .streamJitterSeconds, .streamPacketsTotal, .streamSeriesDropped,
    .captureUp, .linkUp, .captureReceivedPacketsTotal, .captureDroppedPacketsTotal,
    .captureInterfaceDroppedPacketsTotal,
    .streams, .streamSlots, .tickDurationSeconds, .ticksSkippedTotal, .tickLatenessSeconds,
    .packetsTotal, .rtcpPacketsTotal,
    .decodeErrorsTotal, .truncatedPacketsTotal, .captureClockStepsTotal,
    .captureOutOfOrderTimestampsTotal, .captureBadTimestampRecordsTotal,
    .probeInfo, .probeSentTotal, .probeReceivedTotal, .probeLostTotal, .probeLostPending,
    .probeLateAnswersTotal, .probeDuplicatesTotal, .probeReorderedTotal, .probeBadTimestampsTotal,
    .probeRTTSeconds,
    .probeDelaySeconds, .probeIPDVSeconds, .probeJitterSeconds, .probeAnswersRefusedTotal,
    .probeSendsMissedTotal,
    .reflectorReceivedPacketsTotal, .reflectorReceivedBytesTotal,
    .reflectorReflectedPacketsTotal, .reflectorReflectedBytesTotal, .reflectorSendErrorsTotal,
    .reflectorUserSpaceTimestampsTotal, .reflectorRefusedTotal, .reflectorSessions,
    .storageHealthy, .storageTicksWrittenTotal, .storageRowsWrittenTotal,
    .storageQueueDroppedTicksTotal, .storageQueueLength, .storageErrorsTotal,
    .storageFilesMovedAsideTotal, .storageWriteSecondsTotal, .storageWriteSecondsMax,
    .storageMaintenanceSecondsTotal, .storageDatabaseBytes, .storageReadsTotal,
    .dashboardFailedWritesTotal, .dashboardRotationsTotal, .dashboardRotationFailuresTotal,
  ]

  /// The family of a series name (a histogram's `_bucket`, `_sum`, `_count` included).
  public static func family(ofSeries name: String) -> MetricFamily? {
    families.first { $0.seriesNames.contains(name) }
  }
}
