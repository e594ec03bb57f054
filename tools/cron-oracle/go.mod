// Go module of the cron oracle for the fluxgate test suite (built by src/devenv/tools.ts): robfig/cron at the version Kubernetes pins.
module fluxgate.test/tools/cron-oracle

go 1.25.0

require github.com/robfig/cron/v3 v3.0.1
