//go:build tools

// Package tools pins notification-controller so `go build github.com/fluxcd/notification-controller` resolves from this module.
package tools

import _ "github.com/fluxcd/notification-controller"
