package hlc_test

import (
	"fmt"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

func ExampleClock() {
	wall := hlc.NewManualClock(time.UnixMilli(1783038849123))
	c := hlc.NewClock(wall, "rep_ab12cd34ef56", 0)

	fmt.Println(c.Tick())
	fmt.Println(c.Tick()) // same millisecond: the counter moves

	// A peer 200 ms ahead is adopted; one 2 s ahead is only reported.
	near, _ := hlc.Parse("1783038849323-000004-rep_0123456789abcdef0123456789abcdef")
	far, _ := hlc.Parse("1783038851123-000000-rep_0123456789abcdef0123456789abcdef")
	fmt.Printf("%+v\n", c.Observe(near))
	fmt.Printf("%+v\n", c.Observe(far))
	fmt.Println(c.Tick())
	// Output:
	// 1783038849123-000000-rep_ab12cd34ef56
	// 1783038849123-000001-rep_ab12cd34ef56
	// {Offset:200ms Adopted:true Beyond:false}
	// {Offset:2s Adopted:false Beyond:true}
	// 1783038849323-000005-rep_ab12cd34ef56
}

func ExampleParse() {
	ts, err := hlc.Parse("1783038849123-00002a-rep_ab12cd34ef56")
	fmt.Println(ts.WallMS, ts.Counter, ts.Replica, err)

	_, err = hlc.Parse("1783038849123-00002A-rep_ab12cd34ef56")
	fmt.Println(err)
	// Output:
	// 1783038849123 42 rep_ab12cd34ef56 <nil>
	// not a valid HLC string: '1783038849123-00002A-rep_ab12cd34ef56'
}
