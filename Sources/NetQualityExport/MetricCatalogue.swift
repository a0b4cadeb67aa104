/// Every metric family the agent can expose, each written once: name, type, labels, help.
/// Names follow Prometheus naming (https://prometheus.io/docs/practices/naming/): the
/// `netquality_` prefix, base units, counters ending in `_total`.
///
/// Adding a metric: one `static let` here, its name in `MetricCatalogue.families`, a row in
/// docs/metrics.md (`MetricCatalogueTests` checks all three against a full exposition).
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

  // MARK: The web configuration (--web.config.file)

  public static let httpSecurityInfo = gauge(
    "netquality_http_security_info", labels: ["tls", "client_auth", "basic_auth"],
    "The web configuration in effect (--web.config.file): TLS, client certificates, basic "
      + "auth; always 1.")
  public static let httpAuthFailuresTotal = counter(
    "netquality_http_auth_failures_total", labels: ["reason"],
    "Requests refused 401 by basic auth: missing (no credentials) or invalid (a wrong user "
      + "or password).")
  public static let httpAuthBcryptChecksTotal = counter(
    "netquality_http_auth_bcrypt_checks_total",
    "Credentials checked with bcrypt (each new user and password once; then cached).")
  public static let httpAuthBcryptShedTotal = counter(
    "netquality_http_auth_bcrypt_shed_total",
    "New credentials refused 429 without a check because the bcrypt queue was full (a flood "
      + "of guesses); accepted credentials come from the cache and never wait for it.")
  public static let httpRateLimitedTotal = counter(
    "netquality_http_rate_limited_total",
    "Requests refused 429 by the web configuration's rate_limit.")
  public static let httpTLSHandshakeFailuresTotal = counter(
    "netquality_http_tls_handshake_failures_total",
    "Connections whose TLS handshake failed: plain HTTP to the TLS port, a missing or "
      + "unverified client certificate, no common version or cipher.")

  // MARK: The Alertmanager notifier (named after Prometheus' own `prometheus_notifications_*`)

  public static let alertmanagerNotificationsSentTotal = counter(
    "netquality_alertmanager_notifications_sent_total", labels: ["alertmanager"],
    "Alerts (firing, resent or resolved) an Alertmanager accepted.")
  public static let alertmanagerNotificationsFailedTotal = counter(
    "netquality_alertmanager_notifications_failed_total", labels: ["alertmanager"],
    "Alerts in requests to an Alertmanager that failed (no answer in time, an error status); "
      + "retried with backoff while no Alertmanager accepts them.")
  public static let alertmanagerNotificationsDroppedTotal = counter(
    "netquality_alertmanager_notifications_dropped_total", labels: ["reason"],
    "Alerts given up: queue_full (the oldest, when the queue was full), rejected (refused as "
      + "invalid by every Alertmanager).")
  public static let alertmanagerQueueLength = gauge(
    "netquality_alertmanager_queue_length", "Alerts waiting to be sent.")
  public static let alertmanagerQueueCapacity = gauge(
    "netquality_alertmanager_queue_capacity", "Alerts the queue holds at most.")
  public static let alertmanagerActiveAlerts = gauge(
    "netquality_alertmanager_active_alerts",
    "Firing alerts Alertmanager is being told of (and resent every resend interval).")
  public static let alertmanagerUp = gauge(
    "netquality_alertmanager_up", labels: ["alertmanager"],
    "Whether an Alertmanager accepted the last request sent to it (absent before the first).")
  public static let alertmanagerRequestDurationSeconds = histogram(
    "netquality_alertmanager_request_duration_seconds", labels: ["alertmanager"],
    "Time from connecting to an Alertmanager to its answer (or the timeout), per request.")

  // MARK: The tick: host levels and alerts

  public static let lastTickTimestampSeconds = gauge(
    "netquality_last_tick_timestamp_seconds", "End of the last 2 s window, Unix time.")
  public static let hostQualityLevel = gauge(
    "netquality_host_quality_level", labels: ["direction"],
    "Worst quality over active peers: 0 unknown, 1 excellent ... 5 very bad, 6 down.")
  public static let firingAlerts = gauge(
    "netquality_firing_alerts", labels: ["alertname", "severity"],
    "Alerts firing now, by rule and severity (every peer).")
  public static let alertsFiring = gauge(
    "netquality_alerts_firing", labels: ["alertname", "severity", "peer", "direction", "kind"],
    "Alerts firing now, by rule, peer and direction (peers with series of their own).")

  // MARK: Per peer

  public static let peerQualityLevel = gauge(
    "netquality_peer_quality_level", labels: ["peer", "direction"],
    "Peer quality per direction: 0 unknown, 1 excellent, 2 good, 3 poor, 4 bad, 5 very bad, "
      + "6 down.")
  public static let peerMOS = gauge(
    "netquality_peer_mos", labels: ["peer", "direction"],
    "ITU-T G.107 MOS estimate per direction, when scored.")
  public static let peerLossRatio = gauge(
    "netquality_peer_loss_ratio", labels: ["peer", "direction"],
    "Packet loss over the scoring span (rx measured, tx reported).")
  public static let peerJitterSeconds = gauge(
    "netquality_peer_jitter_seconds", labels: ["peer", "direction"],
    "RFC 3550 interarrival jitter (rx measured, tx reported).")
  public static let peerRTTSeconds = gauge(
    "netquality_peer_rtt_seconds", labels: ["peer", "source"],
    "Round trip to the peer from the capture point: RTCP LSR/DLSR (source=rtcp), or ICE "
      + "checks when RTCP is encrypted (source=stun).")
  public static let peerConnectionState = gauge(
    "netquality_peer_connection_state", labels: ["peer", "state"],
    "1 for the peer's current connection state.")
  public static let peerQualitySecondsTotal = counter(
    "netquality_peer_quality_seconds_total", labels: ["peer", "direction", "level"],
    "Seconds the peer spent at each level shown, per direction: an incident of any length "
      + "shows in increase() at any scrape interval.")
  public static let peerQualityLevelMax = gauge(
    "netquality_peer_quality_level_max", labels: ["peer", "direction"],
    "The worst level shown for the peer in the current and the previous minute: a scrape at any "
      + "interval up to a minute sees every level shown, however briefly.")
  public static let peerReceivedPacketsTotal = counter(
    "netquality_peer_received_packets_total", labels: ["peer"],
    "RTP packets received from the peer.")
  public static let peerLostPacketsTotal = counter(
    "netquality_peer_lost_packets_total", labels: ["peer"],
    "RTP packets from the peer that never arrived.")
  public static let peerSentPacketsTotal = counter(
    "netquality_peer_sent_packets_total", labels: ["peer"], "RTP packets sent to the peer.")
  public static let peerRetransmittedPacketsTotal = counter(
    "netquality_peer_retransmitted_packets_total", labels: ["peer", "direction"],
    "RFC 4588 retransmissions (rx from the peer, tx to it), outside the media packet counts.")
  public static let peerFECPacketsTotal = counter(
    "netquality_peer_fec_packets_total", labels: ["peer"],
    "Forward error correction packets from the peer on streams of their own (ULPFEC, FlexFEC).")

  // MARK: The fleet: any number of peers

  public static let peers = gauge(
    "netquality_peers", labels: ["direction", "level"],
    "Peers tracked at each quality level, per direction (any number of peers).")
  public static let peersQualitySecondsTotal = counter(
    "netquality_peers_quality_seconds_total", labels: ["direction", "level"],
    "Peer-seconds spent at each level shown, summed over every peer, per direction.")
  public static let peersStateTransitionsTotal = counter(
    "netquality_peers_state_transitions_total", labels: ["state"],
    "Connection state transitions of every peer, by the state entered (recovered: back to "
      + "connected).")
  public static let alertsFiredTotal = counter(
    "netquality_alerts_fired_total", labels: ["alertname", "severity"],
    "Agent alerts fired, by rule (every rule in effect, from 0).")
  public static let peersInState = gauge(
    "netquality_peers_in_state", labels: ["state"], "Peers tracked in each connection state.")
  public static let peerSeriesOmitted = gauge(
    "netquality_peer_series_omitted",
    "Peers left out of the per-peer series by metrics.max_peer_series (counted in the fleet "
      + "series).")
  public static let peersMOS = histogram(
    "netquality_peers_mos", labels: ["direction"],
    "MOS of the peers scored in the last tick, per direction (one observation per peer).")
  public static let peersLossRatio = histogram(
    "netquality_peers_loss_ratio", labels: ["direction"],
    "Packet loss over the scoring span of the peers scored, per direction.")
  public static let peersJitterSeconds = histogram(
    "netquality_peers_jitter_seconds", labels: ["direction"],
    "RFC 3550 jitter of the peers scored, per direction.")
  public static let peersRTTSeconds = histogram(
    "netquality_peers_rtt_seconds", "Round trip of the peers that have one.")

  // MARK: Per stream (opt-in)

  static let streamLabels = ["src", "dst", "ssrc", "direction"]
  public static let streamLossRatio = gauge(
    "netquality_stream_loss_ratio", labels: streamLabels,
    "Loss of the last window, per stream (opt-in).")
  public static let streamJitterSeconds = gauge(
    "netquality_stream_jitter_seconds", labels: streamLabels,
    "RFC 3550 jitter of the last window, per stream.")
  public static let streamPacketsTotal = counter(
    "netquality_stream_packets_total", labels: streamLabels, "RTP packets of the stream.")
  public static let streamSeriesDropped = gauge(
    "netquality_stream_series_dropped", "Streams left out of the per-stream series by the cap.")

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

  // MARK: Probes (STAMP sender)

  public static let probeInfo = gauge(
    "netquality_probe_info", labels: ["peer", "targets", "timestamps", "clocks"],
    "Probed peers; timestamps=kernel when answers are timed by the kernel (SO_TIMESTAMPNS), "
      + "user otherwise; clocks=synchronized when both ends set the STAMP S bit.")
  public static let probeSentTotal = counter(
    "netquality_probe_sent_total", labels: ["peer"],
    "Probes sent and settled (answered or past the deadline).")
  public static let probeReceivedTotal = counter(
    "netquality_probe_received_total", labels: ["peer"], "First answers to probes.")
  public static let probeLostTotal = counter(
    "netquality_probe_lost_total", labels: ["peer", "direction"],
    "Probes lost, by direction: forward (never reached the reflector) or backward (its answer "
      + "never came), told apart by the reflector's sequence numbers (RFC 8762 4.3.2).")
  public static let probeLostPending = gauge(
    "netquality_probe_lost_pending", labels: ["peer"],
    "Probes lost since the latest answer, direction not known until the next one.")
  public static let probeLateAnswersTotal = counter(
    "netquality_probe_late_answers_total", labels: ["peer", "cause"],
    "Answers that came after their probe's deadline, by cause: reflector_stall (the reflector "
      + "held it longer than the path took: lost neither way), path_delay (lost in the "
      + "direction that delayed it).")
  public static let probeDuplicatesTotal = counter(
    "netquality_probe_duplicates_total", labels: ["peer"], "Second answers to the same probe.")
  public static let probeReorderedTotal = counter(
    "netquality_probe_reordered_total", labels: ["peer"],
    "Answers that came after a later probe's.")
  public static let probeBadTimestampsTotal = counter(
    "netquality_probe_bad_timestamps_total", labels: ["peer"],
    "Answers whose timestamps cannot be right (reflector turnaround longer than the round "
      + "trip).")
  public static let probeRTTSeconds = histogram(
    "netquality_probe_rtt_seconds", labels: ["peer"],
    "Round trip without the reflector's turnaround: (T4 - T1) - (T3 - T2), RFC 8762 section 4.")
  public static let probeDelaySeconds = histogram(
    "netquality_probe_delay_seconds", labels: ["peer", "direction"],
    "One-way delay per direction, only while both clocks say they are synchronised.")
  public static let probeIPDVSeconds = histogram(
    "netquality_probe_ipdv_seconds", labels: ["peer", "direction"],
    "Absolute delay variation between consecutive probes per direction (RFC 3393 IPDV).")
  public static let probeJitterSeconds = gauge(
    "netquality_probe_jitter_seconds", labels: ["peer", "direction"],
    "RFC 3550 jitter per direction on probe times, the largest of the last window.")
  public static let probeAnswersRefusedTotal = counter(
    "netquality_probe_answers_refused_total", labels: ["target", "reason"],
    "Answers to our probes not taken, by reason: foreign (from another address), malformed, "
      + "bad_hmac.")
  public static let probeSendsMissedTotal = counter(
    "netquality_probe_sends_missed_total", labels: ["target", "reason"],
    "Probes that did not leave, by reason: loop_late (the agent woke too late; not counted "
      + "as sent), send_buffer_full (not counted as sent), send_error (no route, a local "
      + "reject: counted as sent and lost).")

  // MARK: The reflector

  public static let reflectorReceivedPacketsTotal = counter(
    "netquality_reflector_received_packets_total", "STAMP requests the reflector read.")
  public static let reflectorReceivedBytesTotal = counter(
    "netquality_reflector_received_bytes_total", "UDP payload bytes of those requests.")
  public static let reflectorReflectedPacketsTotal = counter(
    "netquality_reflector_reflected_packets_total", "Answers sent.")
  public static let reflectorReflectedBytesTotal = counter(
    "netquality_reflector_reflected_bytes_total",
    "UDP payload bytes answered: never more than received (no amplification).")
  public static let reflectorSendErrorsTotal = counter(
    "netquality_reflector_send_errors_total",
    "Answers the socket would not take (not counted as reflected).")
  public static let reflectorUserSpaceTimestampsTotal = counter(
    "netquality_reflector_user_space_timestamps_total",
    "Requests timed after the receive call, the kernel giving no timestamp.")
  public static let reflectorRefusedTotal = counter(
    "netquality_reflector_refused_total", labels: ["reason"],
    "Requests not answered, by reason: too_short, oversized, bad_source_port, not_allowed, "
      + "rate_limited, bad_hmac.")
  public static let reflectorSessions = gauge(
    "netquality_reflector_sessions", "Senders the reflector keeps state for.")

  // MARK: The history (SQLite)

  public static let storageHealthy = gauge(
    "netquality_storage_healthy",
    "Whether the SQLite history is being written (0: failing, see the log and the "
      + "storage_failing alert).")
  public static let storageTicksWrittenTotal = counter(
    "netquality_storage_ticks_written_total",
    "Ticks committed to the history, one transaction each.")
  public static let storageRowsWrittenTotal = counter(
    "netquality_storage_rows_written_total", labels: ["table"], "Rows written, by table.")
  public static let storageQueueDroppedTicksTotal = counter(
    "netquality_storage_queue_dropped_ticks_total",
    "Ticks dropped because the writer's queue was full (a slow or failing disk); the gap is "
      + "recorded in the file's storage_events.")
  public static let storageQueueLength = gauge(
    "netquality_storage_queue_length", "Ticks waiting to be written.")
  public static let storageErrorsTotal = counter(
    "netquality_storage_errors_total", labels: ["kind"],
    "Failed writes or opens of the history, by kind.")
  public static let storageFilesMovedAsideTotal = counter(
    "netquality_storage_files_moved_aside_total",
    "Corrupt history files renamed to <path>.corrupt-<time> and replaced by a new one.")
  public static let storageWriteSecondsTotal = counter(
    "netquality_storage_write_seconds_total",
    "Time spent writing ticks (divide by ticks written for the mean per tick).")
  public static let storageWriteSecondsMax = gauge(
    "netquality_storage_write_seconds_max", "The slowest tick write since the start.")
  public static let storageMaintenanceSecondsTotal = counter(
    "netquality_storage_maintenance_seconds_total",
    "Time spent downsampling and deleting by retention.")
  public static let storageReadsTotal = counter(
    "netquality_storage_reads_total", labels: ["outcome"],
    "Reads of the history for the HTTP API and the status page, by outcome: answered, busy "
      + "(refused 503 at once, the readers and their queue full), cancelled (the client went "
      + "away), timed_out.")
  public static let storageDatabaseBytes = gauge(
    "netquality_storage_database_bytes",
    "Bytes of the history file in use (pages minus the free list).")

  // MARK: The dashboard file

  public static let dashboardFailedWritesTotal = counter(
    "netquality_dashboard_failed_writes_total",
    "Dashboard frames that could not be written whole (a full disk); see the log.")
  public static let dashboardRotationsTotal = counter(
    "netquality_dashboard_rotations_total",
    "Times the dashboard file reached dashboard.max_size_mb and was rotated to <file>.1.")
  public static let dashboardRotationFailuresTotal = counter(
    "netquality_dashboard_rotation_failures_total",
    "Rotations of the dashboard file that failed (a rename or the new file's open), one per "
      + "frame written past the limit meanwhile; see the log.")
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
