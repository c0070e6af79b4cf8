package loop

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
)

func TestScratch(t *testing.T) {
	files, _ := filepath.Glob("../../shared/reference/python-hook-loop/*/*.json")
	files = append(files, "../../shared/reference/python-hook-loop/hook-loop.json")
	for _, f := range files {
		spec, ds, err := Load(f)
		fmt.Println("==", f, err)
		fmt.Print(describeDiagnostics(ds))
		if spec == nil {
			continue
		}
		rt := NewRuntime(spec.Definition, eventlog.Open("/tmp/scratch/"+filepath.Base(filepath.Dir(f))+filepath.Base(f)+".jsonl"), NewFakeAgent(spec.Simulation.AgentSteps), NewFakeEvaluator(spec.Simulation.Verdicts))
		st, err := rt.RunUntilStop(spec.Simulation.Budget)
		fmt.Println("final", st, err)
	}
}
