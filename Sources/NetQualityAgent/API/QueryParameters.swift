import Hummingbird

/// The checks every JSON route of the API makes of its query parameters before it reads them:
/// a name the route does not take is refused (a typo would otherwise be an unfiltered answer),
/// and so is a parameter given twice where it takes one value (refused rather than guessed
/// at). Each refusal is a sentence saying what the route takes; the route answers 400 with it.
enum QueryParameters {
  struct Failure: Error, CustomStringConvertible, Equatable {
    var description: String
  }

  /// Refuses a parameter that is not one of `names`, and one of them given more than once.
  static func check(_ query: Parameters, path: String, takes names: [String]) throws(Failure) {
    try refuseUnknown(query, path: path, takes: names)
    for name in names { _ = try single(name, query) }
  }

  /// Refuses a parameter that is not one of `names`.
  static func refuseUnknown(_ query: Parameters, path: String, takes names: [String])
    throws(Failure)
  {
    for (name, _) in query where !names.contains(String(name)) {
      throw Failure(
        description:
          "\(name): not a parameter of \(path); it takes " + names.joined(separator: ", "))
    }
  }

  /// The value of a parameter that takes one: given twice, it is refused.
  static func single(_ name: String, _ query: Parameters) throws(Failure) -> String? {
    let values = query.getAll(name)
    guard values.count <= 1 else {
      throw Failure(description: "\(name) given \(values.count) times: give it once")
    }
    return values.first
  }
}
