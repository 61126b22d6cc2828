package rules

import (
	"errors"
	"testing"
)

// checkErr fails unless err is nil when want is "", or is an *Error
// matching ErrInvalid whose text is exactly want.
func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("error %v (%T); want *Error wrapping ErrInvalid with %q", err, err, want)
	}
	if err.Error() != want {
		t.Fatalf("error text\n got %q\nwant %q", err.Error(), want)
	}
}
