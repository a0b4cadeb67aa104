import GRDB

/// The history's tables, created and upgraded by GRDB's migrator: each migration runs once, in
/// order, in its own transaction, and the database records which ran (`grdb_migrations`), so a
/// file written by an older agent is upgraded in place when a newer one opens it.
///
/// Times are Unix seconds as REAL (the timeline's numbers, exactly); levels are the 0...6
/// scale; states and sources are small integer codes (`HistoryCodes`) with views that spell
/// them out for `sqlite3` users. Per-tick tables are WITHOUT ROWID, keyed by (time, peer): a
/// tick's rows are contiguous, ranges of time are read and deleted in key order.
public enum HistorySchema {
  /// The migrations, oldest first. Never edit one that has shipped: add another.
  public static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1: runs, peers, ticks, peer ticks, events, alerts") { db in
      try db.execute(
        sql: """
          CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,            -- 'agent' or 'capture'
            name TEXT NOT NULL,            -- the host, or the capture file
            version TEXT NOT NULL,
            started_at REAL NOT NULL
          );
          CREATE TABLE peers (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            first_seen REAL NOT NULL
          );
          CREATE TABLE ticks (
            time REAL PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            interval_s REAL NOT NULL,
            host_tx_level INTEGER NOT NULL,
            host_rx_level INTEGER NOT NULL,
            peers INTEGER NOT NULL,
            streams INTEGER NOT NULL,
            capture_frames INTEGER,        -- cumulative since the run started
            capture_dropped INTEGER,       -- kernel drops (pcap_stats), cumulative
            decode_errors INTEGER
          ) WITHOUT ROWID;
          CREATE TABLE peer_ticks (
            time REAL NOT NULL,
            peer_id INTEGER NOT NULL,
            state INTEGER NOT NULL,
            tx_level INTEGER NOT NULL,
            rx_level INTEGER NOT NULL,
            tx_source INTEGER,
            rx_source INTEGER,
            tx_mos REAL,
            rx_mos REAL,
            tx_loss_ratio REAL,
            rx_loss_ratio REAL,
            tx_jitter_ms REAL,
            rx_jitter_ms REAL,
            rtt_ms REAL,
            rtt_source INTEGER,
            rx_packets INTEGER NOT NULL,
            rx_lost INTEGER NOT NULL,
            tx_packets INTEGER NOT NULL,
            rx_bitrate_bps REAL NOT NULL,
            streams INTEGER NOT NULL,
            PRIMARY KEY (time, peer_id)
          ) WITHOUT ROWID;
          CREATE INDEX peer_ticks_by_peer ON peer_ticks(peer_id, time);
          CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            time REAL NOT NULL,
            peer_id INTEGER NOT NULL,
            kind TEXT NOT NULL,
            previous_state TEXT,
            reason TEXT,
            alert_id TEXT
          );
          CREATE INDEX events_by_time ON events(time);
          CREATE INDEX events_by_peer ON events(peer_id, time);
          CREATE TABLE alerts (
            id TEXT PRIMARY KEY,           -- the engine's alert id: rule, labels, start
            run_id INTEGER NOT NULL,
            rule TEXT NOT NULL,
            severity TEXT NOT NULL,
            peer_id INTEGER,
            labels TEXT NOT NULL,          -- JSON object
            summary TEXT NOT NULL,
            fired_at REAL NOT NULL,
            resolved_at REAL,
            end_reason TEXT                -- 'resolved', or 'agent_stopped' when a run ended
          );
          CREATE INDEX alerts_by_time ON alerts(fired_at);
          """)
    }
    migrator.registerMigration("v2: minute aggregates, stream rows, storage health") { db in
      try db.execute(
        sql: """
          CREATE TABLE peer_minutes (
            minute INTEGER NOT NULL,       -- Unix seconds, a multiple of 60
            peer_id INTEGER NOT NULL,
            seconds REAL NOT NULL,         -- time covered by the minute's ticks
            ticks INTEGER NOT NULL,
            tx_level_max INTEGER NOT NULL,
            rx_level_max INTEGER NOT NULL,
            -- seconds at each level, 0 (unknown) ... 6 (down)
            \(HistoryCodes.levelSecondsColumns.map { "\($0) REAL NOT NULL," }.joined(separator: " "))
            tx_mos_min REAL, tx_mos_avg REAL, tx_mos_max REAL,
            rx_mos_min REAL, rx_mos_avg REAL, rx_mos_max REAL,
            tx_loss_avg REAL, tx_loss_max REAL,
            rx_loss_avg REAL, rx_loss_max REAL,
            tx_jitter_avg_ms REAL, tx_jitter_max_ms REAL,
            rx_jitter_avg_ms REAL, rx_jitter_max_ms REAL,
            rtt_min_ms REAL, rtt_avg_ms REAL, rtt_max_ms REAL,
            rx_packets INTEGER NOT NULL,
            rx_lost INTEGER NOT NULL,
            tx_packets INTEGER NOT NULL,
            PRIMARY KEY (minute, peer_id)
          ) WITHOUT ROWID;
          CREATE INDEX peer_minutes_by_peer ON peer_minutes(peer_id, minute);
          CREATE TABLE streams (
            id INTEGER PRIMARY KEY,
            ssrc INTEGER NOT NULL,
            source TEXT NOT NULL,
            destination TEXT NOT NULL,
            direction TEXT NOT NULL,
            role TEXT NOT NULL,
            first_seen REAL NOT NULL,
            UNIQUE (ssrc, source, destination)
          );
          CREATE TABLE stream_ticks (
            time REAL NOT NULL,
            stream_id INTEGER NOT NULL,
            packets INTEGER NOT NULL,
            expected INTEGER NOT NULL,
            lost INTEGER NOT NULL,
            loss_ratio REAL NOT NULL,
            duplicates INTEGER NOT NULL,
            late INTEGER NOT NULL,
            bitrate_bps REAL NOT NULL,
            jitter_ms REAL,
            rtt_ms REAL,
            state INTEGER NOT NULL,
            PRIMARY KEY (time, stream_id)
          ) WITHOUT ROWID;
          CREATE TABLE storage_events (
            id INTEGER PRIMARY KEY,
            time REAL NOT NULL,
            kind TEXT NOT NULL,            -- 'dropped', 'error', 'recovered', 'moved_aside'
            ticks INTEGER,                 -- for 'dropped': ticks the queue let go
            message TEXT NOT NULL
          );
          CREATE TABLE rollup (
            name TEXT PRIMARY KEY,
            watermark REAL NOT NULL        -- everything before it is aggregated
          );
          CREATE VIEW peer_history AS
            SELECT datetime(t.time, 'unixepoch') AS utc, t.time, p.name AS peer,
              CASE t.state \(HistoryCodes.stateCaseSQL) END AS state,
              t.tx_level, t.rx_level, t.tx_mos, t.rx_mos, t.tx_loss_ratio, t.rx_loss_ratio,
              t.tx_jitter_ms, t.rx_jitter_ms, t.rtt_ms, t.rx_packets, t.rx_lost, t.tx_packets,
              t.rx_bitrate_bps, t.streams
            FROM peer_ticks t JOIN peers p ON p.id = t.peer_id;
          """)
    }
    // A minute's averages leave out the ticks without the figure (no MOS while a direction is
    // unknown, no round trip yet): to average minutes the report weighs each by the ticks that
    // had it, not by all its ticks. Rows aggregated before have NULL here and are weighed by
    // their ticks, as before.
    migrator.registerMigration("v3: ticks behind each minute's averages") { db in
      try db.execute(
        sql: """
          ALTER TABLE peer_minutes ADD COLUMN tx_mos_ticks INTEGER;
          ALTER TABLE peer_minutes ADD COLUMN rx_mos_ticks INTEGER;
          ALTER TABLE peer_minutes ADD COLUMN tx_loss_ticks INTEGER;  -- and jitter
          ALTER TABLE peer_minutes ADD COLUMN rx_loss_ticks INTEGER;
          ALTER TABLE peer_minutes ADD COLUMN rtt_ticks INTEGER;
          """)
    }
    // An index of peer_ticks by (peer, time) puts every tick's rows in as many places as there
    // are peers: at 1,000 peers each tick's transaction rewrote about 1,000 index pages (4 MB
    // through the WAL every 2 s, 8 times the time of the rows themselves). One peer's ticks are
    // found through the primary key instead, a tick at a time (`HistoryQuery.rows`).
    migrator.registerMigration("v4: peer ticks without the per-peer index") { db in
      try db.execute(sql: "DROP INDEX IF EXISTS peer_ticks_by_peer")
    }
    // A report over a day of 1,000 peers combined 1.4 million minute rows, 32 aggregates each:
    // 15 s. Hours cut that to 24,000 rows, with the minutes only at the ends of the range; the
    // worst minutes of each hour and peer stand in for the hour's minutes in the ranking of the
    // report's worst minutes (a minute among the range's worst is among its hour's worst).
    migrator.registerMigration("v5: hour aggregates and each hour's worst minutes") { db in
      try db.execute(
        sql: """
          CREATE TABLE peer_hours (
            hour INTEGER NOT NULL,         -- Unix seconds, a multiple of 3600
            peer_id INTEGER NOT NULL,
            seconds REAL NOT NULL,
            ticks INTEGER NOT NULL,
            tx_level_max INTEGER NOT NULL,
            rx_level_max INTEGER NOT NULL,
            tx_level0_s REAL NOT NULL, tx_level1_s REAL NOT NULL, tx_level2_s REAL NOT NULL,
            tx_level3_s REAL NOT NULL, tx_level4_s REAL NOT NULL, tx_level5_s REAL NOT NULL,
            tx_level6_s REAL NOT NULL,
            rx_level0_s REAL NOT NULL, rx_level1_s REAL NOT NULL, rx_level2_s REAL NOT NULL,
            rx_level3_s REAL NOT NULL, rx_level4_s REAL NOT NULL, rx_level5_s REAL NOT NULL,
            rx_level6_s REAL NOT NULL,
            tx_mos_min REAL, tx_mos_avg REAL, tx_mos_max REAL,
            rx_mos_min REAL, rx_mos_avg REAL, rx_mos_max REAL,
            tx_loss_avg REAL, tx_loss_max REAL,
            rx_loss_avg REAL, rx_loss_max REAL,
            tx_jitter_avg_ms REAL, tx_jitter_max_ms REAL,
            rx_jitter_avg_ms REAL, rx_jitter_max_ms REAL,
            rtt_min_ms REAL, rtt_avg_ms REAL, rtt_max_ms REAL,
            rx_packets INTEGER NOT NULL,
            rx_lost INTEGER NOT NULL,
            tx_packets INTEGER NOT NULL,
            tx_mos_ticks INTEGER, rx_mos_ticks INTEGER, tx_loss_ticks INTEGER,
            rx_loss_ticks INTEGER, rtt_ticks INTEGER,
            PRIMARY KEY (hour, peer_id)
          ) WITHOUT ROWID;
          CREATE TABLE peer_worst_minutes (
            minute INTEGER NOT NULL,
            peer_id INTEGER NOT NULL,
            tx_level_max INTEGER NOT NULL,
            rx_level_max INTEGER NOT NULL,
            tx_mos_min REAL,
            rx_mos_min REAL,
            rx_loss_max REAL,
            tx_loss_max REAL,
            PRIMARY KEY (minute, peer_id)
          ) WITHOUT ROWID;
          """)
    }
    // Media experience beside the levels (docs/media.md): each tick's window, NULL for a peer
    // without video, audio tracking or feedback that way.
    migrator.registerMigration(mediaVersion) { db in
      for column in [
        "rx_video_frames INTEGER", "rx_video_fps REAL", "rx_video_freezes INTEGER",
        "rx_video_freeze_s REAL", "rx_video_pauses INTEGER", "rx_video_pause_s REAL",
        "tx_video_frames INTEGER", "tx_video_fps REAL", "tx_video_freezes INTEGER",
        "tx_video_freeze_s REAL", "rx_audio_concealed_s REAL", "tx_audio_concealed_s REAL",
        "rx_nacks INTEGER", "rx_plis INTEGER", "tx_nacks INTEGER", "tx_plis INTEGER",
      ] {
        try db.execute(sql: "ALTER TABLE peer_ticks ADD COLUMN \(column)")
      }
    }
    // Calls (docs/calls.md): one row per call that ended, its figures as columns to filter
    // and list by, and the whole record as `/api/v1/calls` and `analyze --calls` give it. Its
    // ticks are those of `ticks` and its peers' `peer_ticks` from first_tick to last_tick.
    migrator.registerMigration(callsVersion) { db in
      try db.execute(
        sql: """
          CREATE TABLE calls (
            id TEXT PRIMARY KEY,           -- the record's id: kind, start and Call-ID or session
            run_id INTEGER NOT NULL,
            kind TEXT NOT NULL,            -- 'sip', 'webrtc' or 'media'
            call_id TEXT,
            from_user TEXT,                -- as masked by calls.user_masking
            to_user TEXT,
            peers TEXT NOT NULL,           -- the remote peers, space-separated
            start REAL NOT NULL,
            answer REAL,
            end REAL NOT NULL,
            post_dial_delay_s REAL,
            final_status INTEGER,
            end_reason TEXT NOT NULL,
            failed INTEGER NOT NULL,       -- a SIP call never answered
            worst_level INTEGER NOT NULL,  -- the worse direction's worst level, 0...6
            min_mos REAL,
            rx_packets INTEGER NOT NULL,
            rx_lost INTEGER,
            tx_packets INTEGER NOT NULL,
            tx_lost INTEGER,
            first_tick REAL,
            last_tick REAL,
            record TEXT NOT NULL           -- the call record as JSON (CallsJSON)
          );
          CREATE INDEX calls_by_end ON calls(end);
          CREATE INDEX calls_by_call_id ON calls(call_id);
          """)
    }
    // Where a relayed call's packets were lost (docs/calls.md, "Where the loss happened"): its
    // hops summed per segment, NULL for a call that did not pass through this host (and
    // downstream NULL when no far end reported). Rows written before are filled from their
    // records' `hops`, the same sums.
    migrator.registerMigration(hopLossVersion) { db in
      // Written out, not from `HopLoss.Segment`: a shipped migration never changes.
      for column in ["upstream_lost", "relay_lost", "downstream_lost"] {
        try db.execute(sql: "ALTER TABLE calls ADD COLUMN \(column) INTEGER")
      }
      try db.execute(
        sql: """
          UPDATE calls SET
            upstream_lost = (SELECT sum(json_extract(value, '$.upstream_lost'))
              FROM json_each(record, '$.hops')),
            relay_lost = (SELECT sum(json_extract(value, '$.relay_lost'))
              FROM json_each(record, '$.hops')),
            downstream_lost = (SELECT sum(max(0, json_extract(value, '$.downstream_lost')))
              FROM json_each(record, '$.hops'))
          WHERE json_array_length(record, '$.hops') > 0;
          """)
    }
    return migrator
  }

  static let mediaVersion = "v6: media experience in peer ticks"
  static let callsVersion = "v7: calls"
  static let hopLossVersion = "v8: calls' loss per hop"

  /// The newest migration: a database that has it is current.
  public static let currentVersion = hopLossVersion
}
