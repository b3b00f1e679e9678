package output

import (
	agentv1 "keygate/gen/cursor/agent/v1"
)

// Exec wraps an exec request with its id.
func Exec(id uint32, m *agentv1.ExecServerMessage) *msg {
	m.Id = id
	return &msg{Message: &agentv1.AgentServerMessage_ExecServerMessage{ExecServerMessage: m}}
}

// Abort cancels a running exec.
func Abort(id uint32) *msg {
	return &msg{Message: &agentv1.AgentServerMessage_ExecServerControlMessage{ExecServerControlMessage: &agentv1.ExecServerControlMessage{
		Message: &agentv1.ExecServerControlMessage_Abort{Abort: &agentv1.ExecServerAbort{Id: id}}}}}
}

// Query wraps an interaction query with its id.
func Query(id uint32, q *agentv1.InteractionQuery) *msg {
	q.Id = id
	return &msg{Message: &agentv1.AgentServerMessage_InteractionQuery{InteractionQuery: q}}
}

// SetBlob stores a blob in the client's KV store.
func SetBlob(id uint32, blobID, data []byte) *msg {
	return &msg{Message: &agentv1.AgentServerMessage_KvServerMessage{KvServerMessage: &agentv1.KvServerMessage{Id: id,
		Message: &agentv1.KvServerMessage_SetBlobArgs{SetBlobArgs: &agentv1.SetBlobArgs{BlobId: blobID, BlobData: data}}}}}
}

// GetBlob asks the client's KV store for a blob.
func GetBlob(id uint32, blobID []byte) *msg {
	return &msg{Message: &agentv1.AgentServerMessage_KvServerMessage{KvServerMessage: &agentv1.KvServerMessage{Id: id,
		Message: &agentv1.KvServerMessage_GetBlobArgs{GetBlobArgs: &agentv1.GetBlobArgs{BlobId: blobID}}}}}
}

// Checkpoint is a conversation_checkpoint_update.
func Checkpoint(s *agentv1.ConversationStateStructure) *msg {
	return &msg{Message: &agentv1.AgentServerMessage_ConversationCheckpointUpdate{ConversationCheckpointUpdate: s}}
}
