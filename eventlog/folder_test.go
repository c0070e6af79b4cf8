package eventlog

// testFolder is the Folder of this package's tests: a small fold that reads
// every payload key the light parse decodes, so a view that differs between the
// index and a full fold, or between the light and the full parse, shows.
type testFolder struct{}

func (testFolder) Name() string          { return "eventlog-test/1" }
func (testFolder) NewView() View         { return &Summary{} }
func (testFolder) PayloadKeys() []string { return summaryPayloadKeys[:] }

// Summary is testFolder's view, plus the session's chain head (LastHash), which
// the log keeps itself.
type Summary struct {
	State    string `json:"state"`
	Events   int    `json:"events"`
	Outcome  string `json:"outcome"`
	Forced   bool   `json:"forced"`
	Reason   string `json:"reason"`
	LastType string `json:"last_type"`
	LastHash string `json:"-"`
}

func (s *Summary) Fold(e *Event) {
	s.Events++
	s.State = e.State
	switch e.EventType {
	case TypeSessionInitialized:
		if v, ok := e.Payload["initial_state"].(string); ok && v != "" {
			s.State = v
		}
	case TypeStateTransitioned:
		if v, ok := e.Payload["to"].(string); ok && v != "" {
			s.State = v
		}
	case TypeLoopOutcome:
		s.Outcome, _ = e.Payload["outcome"].(string)
		s.Forced, _ = e.Payload["forced_by_harness"].(bool)
	case TypeLoopDisarmed:
		s.Reason, _ = e.Payload["reason"].(string)
	}
	s.LastType = e.EventType
}

// Apply folds e and records the hash of its line.
func (s *Summary) Apply(e *Event, lineHash string) {
	s.Fold(e)
	s.LastHash = lineHash
}

// sessionOf is session id's Summary in tx, with its chain head.
func sessionOf(tx *Tx, id string) Summary {
	var s Summary
	if v, ok := tx.View(id).(*Summary); ok {
		s = *v
	}
	s.LastHash = tx.Head(id).LastHash
	return s
}

// projectOf is the project's Summary in tx.
func projectOf(tx *Tx) Summary {
	if v, ok := tx.ProjectView().(*Summary); ok {
		return *v
	}
	return Summary{}
}

// openTest opens the log at path with testFolder.
func openTest(path string) *Log { return Open(path, testFolder{}) }
