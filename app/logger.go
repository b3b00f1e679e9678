package app

import (
	"fmt"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"keygate/app/config"
)

// NewLogger builds the process logger: human-readable on a terminal, JSON
// otherwise (so log collectors get structured lines). The cleanup flushes it.
func NewLogger(cfg config.Config) (*zap.Logger, func(), error) {
	level, err := zapcore.ParseLevel(cfg.LogLevel)
	if err != nil {
		return nil, nil, fmt.Errorf("parse log level: %w", err)
	}
	var zc zap.Config
	if cfg.LogFormat == "console" || (cfg.LogFormat == "auto" && isTerminal(os.Stderr)) {
		zc = zap.NewDevelopmentConfig()
		zc.DisableStacktrace = true
	} else {
		zc = zap.NewProductionConfig()
		zc.EncoderConfig.TimeKey = "time"
		zc.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
	}
	zc.Level = zap.NewAtomicLevelAt(level)
	logger, err := zc.Build()
	if err != nil {
		return nil, nil, fmt.Errorf("build logger: %w", err)
	}
	return logger, func() { _ = logger.Sync() }, nil
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
