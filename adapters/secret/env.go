package secret

import "strings"

// Environment variables that name the keys (company deployments). Their
// values are secret-bearing and never logged.
const (
	EnvKey          = "KEYGATE_SECRET_KEY"
	EnvKeyFile      = "KEYGATE_SECRET_KEY_FILE"
	EnvPreviousKeys = "KEYGATE_SECRET_PREVIOUS_KEYS" // comma-separated base64
	EnvPreviousFile = "KEYGATE_SECRET_PREVIOUS_KEY_FILE"
)

// SourceFromEnv reads the key variables; with none set the key is the
// generated file in dataDir.
func SourceFromEnv(getenv func(string) string, dataDir string) Source {
	src := Source{Key: getenv(EnvKey), KeyFile: getenv(EnvKeyFile), DataDir: dataDir}
	for _, k := range strings.Split(getenv(EnvPreviousKeys), ",") {
		if k = strings.TrimSpace(k); k != "" {
			src.Previous = append(src.Previous, k)
		}
	}
	if f := getenv(EnvPreviousFile); f != "" {
		src.PreviousFiles = []string{f}
	}
	return src
}
