import Foundation
import NetQualityConfig

extension AlertmanagerHTTPSettings {
  /// The Authorization header's value: `Basic base64(user:password)` (RFC 7617 section 2) for
  /// `basic_auth`, `TYPE CREDENTIALS` for `authorization` (RFC 9110 section 11.6.2), nil for
  /// neither. It holds the secret: it goes on the wire and nowhere else.
  var authorizationHeader: String? {
    if let basic = basicAuth {
      let pair = Data("\(basic.username):\(basic.password.value)".utf8)
      return "Basic \(pair.base64EncodedString())"
    }
    if let authorization {
      return "\(authorization.type) \(authorization.credentials.value)"
    }
    return nil
  }
}
