import NetQualityCore
import Yams

extension Walker {
  /// `ADDRESS:PORT` with an IP address or a host name, resolved here, once
  /// (`HostNameResolver`); `allowAny`: the unspecified address (listen on all) is accepted.
  mutating func endpoint(_ node: Node, _ key: String, allowAny: Bool) -> Endpoint? {
    endpointAndName(node, key, allowAny: allowAny)?.endpoint
  }

  /// `endpoint`, and the host name it was written with (nil for an IP address).
  mutating func endpointAndName(_ node: Node, _ key: String, allowAny: Bool) -> (
    endpoint: Endpoint, hostName: String?
  )? {
    guard let text = string(node, key) else { return nil }
    let listen: ListenAddress
    switch ListenAddress.parse(text) {
    case .success(let parsed): listen = parsed
    case .failure(let failure):
      issue(node, key, "'\(text)': \(failure.message)")
      return nil
    }
    guard let address = IPAddress(listen.host), let port = UInt16(exactly: listen.port) else {
      issue(node, key, "'\(text)': \(ListenAddress.expected)")
      return nil
    }
    if !allowAny && (address == IPAddress(ipv4: 0, 0, 0, 0) || address.description == "::") {
      issue(node, key, "'\(text)': a probe target needs a reflector's address, not 0.0.0.0 or ::")
      return nil
    }
    return (Endpoint(address: address, port: port), listen.hostName)
  }

  /// `probe_endpoint.allow`: each entry a `ProbeAllowRule`.
  mutating func probeAllowRules(_ node: Node, _ key: String) -> [ProbeAllowRule] {
    list(node, key).enumerated().compactMap { index, item in
      guard let text = string(item, "\(key)[\(index)]") else { return nil }
      guard let rule = ProbeAllowRule(text) else {
        issue(item, "\(key)[\(index)]", "'\(text)': \(ProbeAllowRule.expected)")
        return nil
      }
      return rule
    }
  }

  mutating func probes(_ node: Node) -> [ProbeTargetSettings] {
    let known = ["target", "name", "rate", "size", "dscp", "timeout", "auth_key_file"]
    // A peer is an address: two targets of one address would be merged into one peer (under
    // the first's name, the answers of one counted against the other's probes).
    var seen: [IPAddress: (index: Int, line: Int?)] = [:]
    return list(node, "probes").enumerated().compactMap { index, item in
      let path = "probes[\(index)]"
      let fields = entries(item, path, known: known)
      guard let targetNode = fields["target"] else {
        issue(item, "\(path).target", "every probe needs a target (ADDRESS:PORT of a reflector)")
        return nil
      }
      guard let (target, hostName) = endpointAndName(targetNode, "\(path).target", allowAny: false)
      else { return nil }
      if let first = seen[target.address] {
        let line = first.line.map { " (line \($0))" } ?? ""
        issue(
          targetNode, "\(path).target",
          "\(target): \(target.address) is already probed by probes[\(first.index)]\(line); an "
            + "address is one peer, so one probe target per address")
        return nil
      }
      seen[target.address] = (index, targetNode.mark?.line)
      var probe = ProbeTargetSettings(target: target)
      // A target written with a host name is the peer of that name unless `name` says another.
      probe.name = hostName
      if let node = fields["name"], let value = string(node, "\(path).name") {
        probe.name = value
      }
      if let node = fields["rate"],
        let value = number(node, "\(path).rate", in: ProbeTargetSettings.rateRangePerSecond)
      {
        probe.ratePerSecond = value
      }
      if let node = fields["size"],
        let value = integer(node, "\(path).size", in: ProbeTargetSettings.sizeRangeBytes)
      {
        probe.sizeBytes = value
      }
      if let node = fields["dscp"], let value = integer(node, "\(path).dscp", in: 0...63) {
        probe.dscp = value
      }
      if let node = fields["timeout"],
        let value = number(node, "\(path).timeout", in: ProbeTargetSettings.timeoutRangeSeconds)
      {
        probe.timeoutSeconds = value
      }
      if let node = fields["auth_key_file"], let value = string(node, "\(path).auth_key_file") {
        probe.authKeyFile = value
      }
      // RFC 8762 section 4.2.2: an authenticated probe is 112 octets at least.
      if !probe.authKeyFile.isEmpty && probe.sizeBytes != 0 && probe.sizeBytes < 112 {
        issue(fields["size"], "\(path).size", "authenticated probes are at least 112 bytes")
      }
      return probe
    }
  }
}
