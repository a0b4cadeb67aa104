import NetQualityConfig
import NetQualityProbe

extension STAMPKeyFile {
  /// The keys in the file at `path`, read like every file the agent takes as configuration
  /// (`BoundedFileReader`: a regular file, opened without blocking, at most `maximumFileBytes`
  /// read), so a FIFO or a device named as a key file cannot hang the start or a check. Here
  /// rather than beside the parser: `NetQualityProbe` does not depend on `NetQualityConfig`.
  public static func load(path: String) throws(STAMPKeyFileError) -> [STAMPKey] {
    let bytes: [UInt8]
    do {
      bytes = try BoundedFileReader.read(path: path, maximumBytes: maximumFileBytes)
    } catch {
      throw STAMPKeyFileError(description: "cannot read key file \(path): \(error)")
    }
    return try parse(bytes: bytes, path: path)
  }
}
