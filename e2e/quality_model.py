"""docs/quality-model.md, written again in Python so the end-to-end tests can check the
agent's levels against the documented model rather than against fixed names: every level a
tick reports must be the level its own inputs give."""

# G.107 defaults and the project's constants, as documented.
BASE_RATING = 93.2
DELAY_SLOPE, DELAY_KNEE, DELAY_KNEE_SLOPE = 0.024, 177.3, 0.11
RATING_FLOORS = [80, 70, 60, 50]
JITTER_CEILINGS_MS = [30, 50, 100, 150]
JITTER_BUFFER_MULTIPLE, JITTER_BUFFER_MINIMUM_MS = 2.0, 20.0
CODEC = {False: {"bpl": 25.1, "ie": 0.0, "delay_ms": 20.0}, True: {"bpl": 10.0, "ie": 0.0, "delay_ms": 33.0}}
NAMES = {0: "unknown", 1: "excellent", 2: "good", 3: "poor", 4: "bad", 5: "very_bad", 6: "down"}


def rating(loss_ratio, jitter_ms, rtt_ms, video):
    codec = CODEC[bool(video)]
    buffer_ms = max(JITTER_BUFFER_MINIMUM_MS, JITTER_BUFFER_MULTIPLE * jitter_ms)
    delay = (rtt_ms / 2 if rtt_ms is not None else 0.0) + buffer_ms + codec["delay_ms"]
    delay = max(0.0, delay)
    impairment_delay = DELAY_SLOPE * delay + (DELAY_KNEE_SLOPE * (delay - DELAY_KNEE) if delay > DELAY_KNEE else 0)
    percent = min(100.0, max(0.0, loss_ratio * 100))
    impairment_loss = codec["ie"] + (95 - codec["ie"]) * percent / (percent + codec["bpl"])
    return min(100.0, max(0.0, BASE_RATING - impairment_delay - impairment_loss))


def level_of_rating(r):
    for index, floor in enumerate(RATING_FLOORS):
        if r >= floor:
            return index + 1
    return 5


def level_of_jitter(jitter_ms):
    for index, ceiling in enumerate(JITTER_CEILINGS_MS):
        if jitter_ms <= ceiling:
            return index + 1
    return 5


def levels(direction):
    """The levels a direction's inputs may give: one, or two when R or the jitter sits within
    floating-point noise of a band edge."""
    loss, jitter = direction["loss_ratio"], direction["jitter_ms"]
    r = rating(loss, jitter, direction.get("rtt_ms"), direction.get("video"))
    by_rating = {level_of_rating(r + nudge) for nudge in (-1e-9, 0, 1e-9)}
    by_jitter = {level_of_jitter(jitter + nudge) for nudge in (-1e-9, 0, 1e-9)}
    return {max(a, b) for a in by_rating for b in by_jitter}


class Damper:
    """LevelDamper (Sources/NetQualityCore/Quality/LevelDamper.swift), the same rules: two or
    more bands worse shows after 1 tick, one band worse after 3 in a row (as the mildest of
    them); two or more bands better, to good or excellent, after 3 in a row, any other better
    level after 30 in a row (as the worst of them); unknown at once. Levels 1..6, 0 unknown."""

    def __init__(self, worsen_after=1, worsen_one_level_after=3, improve_after=3,
                 improve_one_level_after=30):
        self.level = 0
        self.run, self.far_run = [0, 0], [0, 0]  # [level, ticks]
        self.worsen_after, self.worsen_one = worsen_after, worsen_one_level_after
        self.improve_after, self.improve_one = improve_after, improve_one_level_after

    @staticmethod
    def _extend(run, raw, worst):
        run[0] = raw if run[1] == 0 else (max(run[0], raw) if worst else min(run[0], raw))
        run[1] += 1

    def _take(self, level):
        self.level, self.run, self.far_run = level, [0, 0], [0, 0]

    def update(self, raw):
        if raw == self.level or self.level == 0 or raw == 0:
            self._take(raw)
            return self.level
        worse = raw > self.level
        if self.run[1] > 0 and (self.run[0] > self.level) != worse:
            self.run, self.far_run = [0, 0], [0, 0]
        self._extend(self.run, raw, worst=not worse)
        far = raw >= self.level + 2 if worse else (raw <= self.level - 2 and raw <= 2)
        if far:
            self._extend(self.far_run, raw, worst=not worse)
        else:
            self.far_run = [0, 0]
        if self.far_run[1] >= (self.worsen_after if worse else self.improve_after):
            self._take(self.far_run[0])
        elif self.run[1] >= (self.worsen_one if worse else self.improve_one):
            self._take(self.run[0])
        return self.level


def check_consistency(ticks, peer, direction="rx"):
    """Every tick's raw level is the model's level for its inputs, and the reported level is
    the damped raw level (or down / unknown as the connection state says). Returns a list of
    problems, empty when consistent, and how many ticks were checked."""
    problems, checked = [], 0
    damper = Damper()
    for tick in ticks:
        for entry in tick["peers"]:
            if entry["peer"] != peer:
                continue
            scored = entry[direction]
            raw = scored["raw_level"]
            if scored["packets"] is not None and raw != 0:
                allowed = levels(scored)
                checked += 1
                if raw not in allowed:
                    problems.append(
                        "tick %.0f: raw level %s, model gives %s for loss %.4f jitter %.2f ms rtt %s"
                        % (tick["time"], raw, sorted(allowed), scored["loss_ratio"], scored["jitter_ms"], scored["rtt_ms"]))
            # A disconnected, timed-out or ended peer reports down or unknown instead of its
            # score; silent for 12 s or more, its 6 s scoring span holds no packets, so the
            # damper was fed unknown.
            damped = damper.update(0 if entry["state"] in ("disconnected", "timeout", "ended") else raw)
            expected = {"disconnected": 6, "timeout": 6, "ended": 0}.get(entry["state"], damped)
            if entry["%s_quality" % direction] != expected:
                problems.append(
                    "tick %.0f: reported level %s, damping the raw levels gives %s (state %s)"
                    % (tick["time"], entry["%s_quality" % direction], expected, entry["state"]))
    return problems, checked
