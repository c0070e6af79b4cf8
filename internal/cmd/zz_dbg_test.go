package cmd
import ("testing";"bytes")
func TestDbgArgs(t *testing.T){
	var b bytes.Buffer
	app := NewApp(&IOStreams{Out:&b,ErrOut:&b})
	t.Log(interspersed(app, []string{"hl","opencode","install","--destination","/tmp","--dsl","x"}))
	t.Log(interspersed(app, []string{"hl","codex","install","--destination","/tmp","--dsl","x"}))
}
