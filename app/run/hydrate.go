package run

import (
	"context"
	"fmt"

	"keygate/domain/llm"
)

// hydrate loads the bytes of images that name a blob into the provider
// view of req. Stored messages keep only the blob id, so history stays
// small and an image is stored once.
func (r *runner) hydrate(ctx context.Context, req *llm.Request) error {
	if r.e.blobs == nil {
		return nil
	}
	load := func(img *llm.Image) (*llm.Image, error) {
		if img == nil || img.BlobID == "" || len(img.Data) > 0 {
			return img, nil
		}
		data, err := r.e.blobs.Get(ctx, img.BlobID)
		if err != nil {
			return nil, storeErr(fmt.Sprintf("load image blob %s", img.BlobID), err)
		}
		c := *img
		c.Data = data
		return &c, nil
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		for j := range m.Parts {
			img, err := load(m.Parts[j].Image)
			if err != nil {
				return err
			}
			m.Parts[j].Image = img
		}
		if m.ToolResult != nil {
			img, err := load(m.ToolResult.Image)
			if err != nil {
				return err
			}
			m.ToolResult.Image = img
		}
	}
	return nil
}
