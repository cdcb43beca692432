package chat_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gollm/gollm/chat"
)

// A server turns an OpenAI request's messages into the prompt: decode them
// (key order is kept for tojson), render with the model's template (with
// gguf's tokenizer.chat_template text; "" falls back to ChatML), then
// tokenize with chat.PromptTokens(tokenizer, prompt).
func Example() {
	var req struct {
		Messages []chat.Message `json:"messages"`
	}
	body := `{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi!"}]}`
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		panic(err)
	}
	tmpl, fallback, err := chat.ForModel("") // the GGUF's tokenizer.chat_template
	if err != nil {
		panic(err)
	}
	prompt, err := tmpl.Render(req.Messages, chat.Options{AddGenerationPrompt: true})
	var raised *chat.RaiseError
	switch {
	case errors.As(err, &raised):
		fmt.Println("400:", raised.Message) // the template rejected the conversation
	case err != nil:
		panic(err)
	}
	fmt.Println(fallback)
	fmt.Print(prompt)
	// Output:
	// true
	// <|im_start|>system
	// Be brief.<|im_end|>
	// <|im_start|>user
	// Hi!<|im_end|>
	// <|im_start|>assistant
}

// Streamed output of a reasoning model, split as it arrives.
func ExampleReasoningSplitter() {
	s := chat.NewReasoningSplitter(false) // chat.OpensReasoning(prompt) when the template opened <think>
	for _, piece := range []string{"<thi", "nk>\nLet me add.", "\n</think>\n\n", "4"} {
		reasoning, answer := s.Push(piece)
		fmt.Printf("%q %q\n", reasoning, answer)
	}
	reasoning, answer := s.Flush()
	fmt.Printf("%q %q\n", reasoning, answer)
	// Output:
	// "" ""
	// "Let me add." ""
	// "" ""
	// "" "4"
	// "" ""
}
