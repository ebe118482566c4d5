import ReactorLog
import ReactorLogTesting

/// A test store that waits up to 10 seconds for a delivery instead of one. The suite runs on two cores beside tests
/// that keep both busy for seconds, so a mutation that arrives at once on an idle machine can take longer than the
/// default second; a wait that is meant to time out names its own timeout.
func patientStore<R: Reactor>(
    _ reactor: R, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) -> TestStore<R> where R.State: Equatable {
    let store = TestStore(reactor, fileID: fileID, filePath: filePath, line: line, column: column)
    store.timeout = .seconds(10)
    return store
}
