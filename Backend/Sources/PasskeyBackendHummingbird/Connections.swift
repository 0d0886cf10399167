import Dispatch
import Foundation
import Logging
import NIOCore
import NIOHTTPTypes
import PasskeyBackend

/// Closes a connection whose request is not read whole (head to last body byte) within
/// `limit`: a client that trickles its body cannot hold a connection, and Hummingbird's idle
/// timeout, which a trickle of body bytes keeps resetting, is not enough on its own. The head
/// itself is bounded by that idle timeout (it counts from the last complete request part, so a
/// head that never completes is closed after it).
package final class RequestReadDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart

    package let limit: TimeAmount
    private var timer: Scheduled<Void>?

    package init(limit: TimeAmount) { self.limit = limit }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            timer?.cancel()
            let loop = context.eventLoop.assumeIsolated()
            let channel = context.channel
            timer = loop.scheduleTask(in: limit) { channel.close(promise: nil) }
        case .body:
            break
        case .end:
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }
}

/// The last resort of a bounded shutdown: once SIGTERM or SIGINT arrives, the process exits
/// `after` later whatever still runs. ServiceLifecycle first waits for the graceful shutdown
/// (in-flight requests), then cancels; a task that ignores cancellation (a database call that
/// never completes, a connection pool that keeps retrying a database that is down) would
/// otherwise keep the process alive.
package enum ShutdownWatchdog {
    private nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []

    package static func install(after seconds: Int, logger: Logger) {
        for signal in [SIGTERM, SIGINT] {
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler {
                DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) {
                    logger.critical("shutdown did not finish in \(seconds) s: exiting now")
                    exit(1)
                }
            }
            source.resume()
            sources.append(source)
        }
    }
}
