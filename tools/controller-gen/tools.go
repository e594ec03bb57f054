//go:build tools

// Package tools pins controller-gen so `go build sigs.k8s.io/controller-tools/cmd/controller-gen` resolves from this module,
// and the image-automation-controller API packages that controller-gen reads to write the ImageUpdateAutomation CRD.
package tools

import (
	_ "github.com/fluxcd/image-automation-controller/api/v1"
	_ "github.com/fluxcd/image-automation-controller/api/v1beta1"
	_ "github.com/fluxcd/image-automation-controller/api/v1beta2"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
