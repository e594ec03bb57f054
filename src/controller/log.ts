// The controller's logger: the one JSON-lines format of fluxgate's long-running processes (src/kube/log.ts).

export { jsonLogger, parseLogLevel, type Logger, type LogLevel } from "../kube/log.ts";
