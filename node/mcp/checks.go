package mcp

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/node/internal/eventpage"
	"github.com/lsnode/lsnode/store"
)

// checker applies the hub's rules to a call's arguments. A tool reads its
// arguments in the order the Python hub validates them; after the first
// refusal every later read is a no-op returning the zero value, so err is
// the refusal the hub would have reported.
type checker struct {
	a   *callArgs
	err error
}

func newChecker(a *callArgs) *checker { return &checker{a: a} }

// str runs one string rule unless an earlier one failed.
func (c *checker) str(rule func() (string, error)) string {
	if c.err != nil {
		return ""
	}
	s, err := rule()
	c.err = err
	return s
}

// num runs one integer rule unless an earlier one failed.
func (c *checker) num(rule func() (int, error)) int {
	if c.err != nil {
		return 0
	}
	n, err := rule()
	c.err = err
	return n
}

// routing reads a routing field; the field name in errors is the key.
func (c *checker) routing(key string, required bool) string {
	return c.routingAs(key, key, required)
}

// routingAs reads a routing field whose errors name another field, as the
// hub's do when a tool passes an argument on under another name.
func (c *checker) routingAs(key, field string, required bool) string {
	return c.str(func() (string, error) { return rules.Routing(c.a.get(key), field, required) })
}

func (c *checker) eventType(key string) string {
	return c.str(func() (string, error) { return rules.EventType(c.a.get(key)) })
}

// eventTypeFilter reads an optional type filter: null and "" are absent.
func (c *checker) eventTypeFilter(key string) string {
	if v := c.a.get(key); v == nil || v == "" {
		return ""
	}
	return c.eventType(key)
}

func (c *checker) status(key string) string {
	return c.str(func() (string, error) { return rules.Status(c.a.get(key)) })
}

func (c *checker) body(key string) string {
	return c.str(func() (string, error) { return rules.Body(c.a.get(key), rules.MaxBodyBytes, key) })
}

func (c *checker) content(key string) string {
	return c.str(func() (string, error) { return rules.Content(c.a.get(key)) })
}

func (c *checker) artifactKind(key string) string {
	return c.str(func() (string, error) { return rules.ArtifactKind(c.a.get(key)) })
}

func (c *checker) sinceCreatedAt(key string) string {
	return c.str(func() (string, error) { return rules.SinceCreatedAt(c.a.get(key)) })
}

// order reads event_list's order the way the hub's tool does: a value
// that is not a string is first turned into its str() (so 5 becomes '5').
func (c *checker) order(key string) string {
	return c.str(func() (string, error) {
		v := c.a.get(key)
		if _, isString := v.(string); v != nil && !isString {
			v = rules.ReprValue(v)
		}
		return rules.Order(v)
	})
}

// metadata reads an object argument as JSON text, which is what the store
// takes; anything but an object (or null) is refused.
func (c *checker) metadata(key string) json.RawMessage {
	if c.err != nil || !c.a.has(key) {
		return nil
	}
	text, err := rules.Metadata(c.a.text(key))
	c.err = err
	return text
}

func (c *checker) artifactIDs(key string) []string {
	if c.err != nil {
		return nil
	}
	ids, err := rules.ArtifactIDs(c.a.get(key))
	c.err = err
	return ids
}

func (c *checker) limit(key string) int {
	return c.num(func() (int, error) { return rules.Limit(c.a.get(key)) })
}

func (c *checker) timeoutMS(key string) int {
	return c.num(func() (int, error) { return rules.TimeoutMS(c.a.get(key)) })
}

// taskText reads a required task_create field; label names it in errors.
func (c *checker) taskText(key, label string) string {
	return c.str(func() (string, error) { return rules.TaskText(c.a.get(key), label) })
}

// verbatimTaskText reads goal or done: checked like taskText but kept
// as sent, because the hub stores them unstripped.
func (c *checker) verbatimTaskText(key, label string) string {
	if c.taskText(key, label); c.err != nil {
		return ""
	}
	return c.a.get(key).(string) // taskText accepted it, so it is a string
}

func (c *checker) taskBaseCommit(key string) string {
	return c.str(func() (string, error) { return rules.TaskBaseCommit(c.a.get(key)) })
}

// optionalString reads an argument that is a string or absent (""); any
// other value fails with key and must ("must be a string").
func (c *checker) optionalString(key, must string) string {
	return c.str(func() (string, error) {
		switch v := c.a.get(key).(type) {
		case nil:
			return "", nil
		case string:
			return v, nil
		}
		return "", toolFailure(key + " " + must)
	})
}

// cursor reads a portable cursor token; its contents are the store's to
// judge.
func (c *checker) cursor(key string) string {
	return c.optionalString(key, "must be a string")
}

// olderThan reads a duration argument such as "30m".
func (c *checker) olderThan(key string) time.Duration {
	v := c.optionalString(key, "must be a string")
	if c.err != nil {
		return 0
	}
	d, err := store.ParseOlderThan(v)
	c.err = err
	return d
}

// searchQuery reads a search query; its emptiness, length and syntax
// are the store's to judge.
func (c *checker) searchQuery(key string) string {
	return c.optionalString(key, "must be a non-empty string")
}

// searchOrder reads a search order, 'rank' or 'hlc', as the store's.
func (c *checker) searchOrder(key string) string {
	return c.str(func() (string, error) {
		switch v := c.a.get(key).(type) {
		case nil:
			return store.SearchByRank, nil
		case string:
			order, err := eventpage.SearchOrder(v)
			if err != nil {
				return "", toolFailure(err.Error())
			}
			return order, nil
		}
		return "", toolFailure(fmt.Sprintf("order=%s must be '%s' or '%s'", rules.ReprValue(c.a.get(key)), eventpage.SearchRank, eventpage.SearchHLC))
	})
}
