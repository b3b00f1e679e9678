package compile

// ActionNames lists the registered conversation actions, in match order.
func ActionNames() []string {
	names := make([]string, len(actions))
	for i, a := range actions {
		names[i] = a.name
	}
	return names
}
